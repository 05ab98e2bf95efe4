"""Allow `python -m p4compiler`."""
import sys

from .cli import main

sys.exit(main())
