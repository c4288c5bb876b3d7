# Draw lines on a character grid with Bresenham's algorithm, indices held in small int arrays.
import numpy as np

def line(grid, p0, p1, mark):
    x0, y0 = p0
    x1, y1 = p1
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx = 1 if x0 < x1 else -1
    sy = 1 if y0 < y1 else -1
    err = dx + dy
    while True:
        grid[y0, x0] = mark
        if x0 == x1 and y0 == y1:
            break
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy

grid = np.zeros((10, 20), dtype=np.int8)
ends = np.array([[0, 0], [19, 9], [0, 9], [19, 0], [5, 2], [15, 2]])
for k in range(0, len(ends), 2):
    line(grid, ends[k], ends[k + 1], k // 2 + 1)
for row in grid:
    print("".join(".abc"[v] for v in row))
print("cells per line:", np.bincount(grid.ravel(), minlength=4)[1:])
result = grid
