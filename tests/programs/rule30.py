# Elementary cellular automaton (rule 30) grown from a single cell.
import numpy as np

cells = np.zeros(31, dtype=np.uint8)
cells[15] = 1
history = [cells]
for t in range(15):
    left = np.roll(cells, 1)
    right = np.roll(cells, -1)
    pattern = 4 * left + 2 * cells + right
    cells = ((30 >> pattern) & 1).astype(np.uint8)
    history.append(cells)
H = np.array(history)
for row in H:
    print("".join(".#"[v] for v in row))
result = H
