"""SBN dynamic load balancer (Das, Harvey & Biswas) as an lbbench plugin."""
