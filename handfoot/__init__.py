"""handfoot: the application layer (command line, later the web service) over ``scorer`` and ``vision``."""

__version__ = "0.1.0"
