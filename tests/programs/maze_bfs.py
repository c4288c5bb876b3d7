# Breadth-first search through a maze stored as a boolean grid; distances in an int array.
from collections import deque
import numpy as np

layout = np.array([[c == "#" for c in r] for r in [
    "..#.......", ".##.####..", "....#..#.#", "#.#.#.##..", "..#...#..."]])
start, goal = (0, 0), (4, 9)
dist = np.full(layout.shape, -1)
dist[start] = 0
q = deque([start])
while q:
    r, c = q.popleft()
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        nr, nc = r + dr, c + dc
        if 0 <= nr < layout.shape[0] and 0 <= nc < layout.shape[1] and not layout[nr, nc] and dist[nr, nc] < 0:
            dist[nr, nc] = dist[r, c] + 1
            q.append((nr, nc))
print(dist)
print("steps to goal:", dist[goal], "reachable cells:", np.count_nonzero(dist >= 0))
result = dist
