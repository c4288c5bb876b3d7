# Sort records by surname then first name with lexsort, and argsort by score.
import numpy as np

surnames = np.array(["Hertz", "Galilei", "Hertz", "Curie", "Galilei"])
first = np.array(["Heinrich", "Galileo", "Gustav", "Marie", "Vincenzo"])
score = np.array([3.5, 9.0, 2.0, 8.25, 1.0])
order = np.lexsort((first, surnames))
for i in order:
    print(surnames[i], first[i], score[i])
best = np.argsort(score)[::-1]
print("by score:", best)
result = (order, best)
