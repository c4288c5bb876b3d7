# Hand-written binary search over a sorted array, looping on comparisons of array elements.
import numpy as np

arr = np.arange(0, 300, 3)
targets = [0, 45, 46, 297, 150]
found = []
for t in targets:
    lo, hi = 0, len(arr)
    while lo < hi:
        mid = (lo + hi) // 2
        if arr[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    ok = lo < len(arr) and arr[lo] == t
    print(f"target {t}: index {lo} found={ok}")
    found.append(lo)
result = np.array(found)
