# Tic-tac-toe: play random legal moves and detect a winner with row, column and diagonal sums.
import numpy as np

rng = np.random.default_rng(181)

def winner(board):
    lines = np.concatenate([board.sum(axis=0), board.sum(axis=1),
                            [np.trace(board), np.trace(np.fliplr(board))]])
    if np.any(lines == 3):
        return 1
    if np.any(lines == -3):
        return -1
    return 0

tally = np.zeros(3, dtype=int)
for game in range(20):
    board = np.zeros((3, 3), dtype=int)
    player = 1
    w = 0
    while w == 0 and np.any(board == 0):
        free = np.argwhere(board == 0)
        r, c = free[rng.integers(len(free))]
        board[r, c] = player
        w = winner(board)
        player = -player
    tally[w + 1] += 1
    if game < 2:
        print(board, "winner:", w)
print("O wins, draws, X wins:", tally)
result = tally
