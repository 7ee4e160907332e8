"""`python -m worker.cli`: the `segcite` command without its installed script (the tests run it this way)."""

from worker.cli import main

if __name__ == "__main__":
    main()
