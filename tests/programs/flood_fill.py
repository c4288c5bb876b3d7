# Flood fill the open cells of a small maze reachable from a start, growing until nothing changes.
import numpy as np

maze = np.array([
    [0, 0, 1, 0, 0, 0, 0, 0],
    [1, 0, 1, 0, 1, 1, 1, 0],
    [0, 0, 0, 0, 1, 0, 0, 0],
    [0, 1, 1, 1, 1, 0, 1, 1],
    [0, 0, 0, 0, 1, 0, 0, 0],
    [1, 1, 1, 0, 1, 1, 1, 0],
    [0, 0, 0, 0, 0, 0, 1, 0],
    [0, 1, 1, 1, 1, 0, 0, 0],
])
open_ = maze == 0
reached = np.zeros_like(open_)
reached[0, 0] = True
dist = np.full(maze.shape, -1)
dist[0, 0] = 0
d = 0
while d < maze.size:
    grow = reached.copy()
    grow[1:, :] |= reached[:-1, :]
    grow[:-1, :] |= reached[1:, :]
    grow[:, 1:] |= reached[:, :-1]
    grow[:, :-1] |= reached[:, 1:]
    grow &= open_
    if (grow == reached).all():
        break
    d += 1
    dist[grow & ~reached] = d
    reached = grow
print(dist)
print("reachable:", reached.sum(), "exit distance:", dist[-1, -1])
result = dist
