"""Built-in plugins, registered through the same entry-point group as third-party ones."""
