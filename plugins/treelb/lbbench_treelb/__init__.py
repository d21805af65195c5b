"""Tree-based load balancers MCSTLB, BTLB, CBTLB and the AE/ORB, AE/MC, MLkP mappers (Liao & Chung) for lbbench."""
__version__ = "0.1.0"
