# Sorting records held in parallel arrays by several keys: lexsort, stable argsort passes, searchsorted with sorter.
import numpy as np

dept = np.array([2, 1, 2, 0, 1, 0, 2, 1])
salary = np.array([50, 72, 50, 61, 58, 61, 45, 72])
ident = np.arange(100, 108)
order = np.lexsort((ident, -salary, dept))
print("by dept, salary desc, id:", ident[order])
o2 = np.argsort(ident, kind="stable")
o2 = o2[np.argsort(-salary[o2], kind="stable")]
o2 = o2[np.argsort(dept[o2], kind="stable")]
print("same with stable passes:", np.array_equal(order, o2))
sorter = np.argsort(salary, kind="stable")
pos = np.searchsorted(salary, [50, 60, 72], sorter=sorter)
print("positions in salary order:", pos, salary[sorter])
first_of_dept = np.searchsorted(dept[order], np.arange(3))
print("each dept starts at:", first_of_dept)
tops = np.maximum.reduceat(salary[order], first_of_dept)
print("top salary per dept:", tops)
bins = np.digitize(salary, [70, 60, 50], right=True)
print("bands (decreasing edges):", bins)
result = (order, pos, tops, bins)
