# Validate a Sudoku grid: rows, columns and 3x3 boxes through reshape and transpose.
import numpy as np

base = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9])
shifts = np.array([0, 3, 6, 1, 4, 7, 2, 5, 8])
grid = np.array([np.roll(base, -s) for s in shifts])
print(grid)

def valid(g):
    want = np.arange(1, 10)
    rows = np.all(np.sort(g, axis=1) == want)
    cols = np.all(np.sort(g, axis=0) == want[:, None])
    boxes = g.reshape(3, 3, 3, 3).transpose(0, 2, 1, 3).reshape(9, 9)
    box_ok = np.all(np.sort(boxes, axis=1) == want)
    return bool(rows), bool(cols), bool(box_ok)

print(valid(grid))
bad = grid.copy()
bad[0, 0], bad[0, 1] = bad[0, 1], bad[0, 0]
print(valid(bad))
boxes = grid.reshape(3, 3, 3, 3).swapaxes(1, 2).reshape(9, 9)
print(boxes[4])
print("box sums:", boxes.sum(axis=1))
result = (grid, boxes, np.array(valid(bad)))
