"""Seeing graphs: text listings, drawings and HTML reports.

- :mod:`.listing`: ``fgraph.describe(g)``, one line a node (``print(g)``);
- :mod:`.draw`: ``fgraph.draw(g, "g.svg")``, DOT / SVG / PNG pictures;
- :mod:`.arena_svg`: a memory plan as an SVG timeline;
- :mod:`.report`: ``fgraph.report(exe, "report.html")``, one self-contained page.

These sit on top of the layers (they read graphs, plans and programs and
change nothing), and load only when first used.
"""
