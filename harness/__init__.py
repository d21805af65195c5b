"""lbbench core: the public names plugins build on."""
from .context import Context
from .engine import Engine, Timer
from .hookspecs import hookimpl
from .model import Boxes, Graph, Level, LoadArray, Machine, State
from .plugins import Algorithm
from .workloads import Workload

__all__ = ["Algorithm", "Boxes", "Context", "Engine", "Graph", "Level", "LoadArray", "Machine",
           "State", "Timer", "Workload", "hookimpl"]
