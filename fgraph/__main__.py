"""python -m fgraph demo — the main job: NumPy code as a graph, end to end."""
import sys


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m fgraph demo\n       python -m fgraph.bench {build} [--quick]")
        return 0 if argv else 2
    if argv[0] == "demo":
        from .demo import run

        return run()
    print(f"unknown command {argv[0]!r}; try: python -m fgraph demo", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
