"""MinEX (Das, Harvey, Biswas): latency-tolerant diffusive multilevel partitioner."""
__version__ = "0.2.0"
