"""MLB: Multilevel Load Balancing for structured grid applications (Quinlan & Berndt, 1997) for lbbench."""
