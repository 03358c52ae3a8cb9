"""handfoot: the application layer (:mod:`handfoot.core`), its command line and its web service over ``scorer`` and
``vision``."""

__version__ = "0.1.0"
