# Coordinate grids with mgrid, ogrid and indices; a disc mask and a radial profile.
import numpy as np

yy, xx = np.mgrid[0:7, 0:9]
print(yy.shape, xx[0], yy[:, 0])
oy, ox = np.ogrid[-3:4, -4:5]
print(oy.shape, ox.shape)
disc = ox ** 2 + oy ** 2 <= 9
for row in disc:
    print("".join("o" if v else "." for v in row))
pts = np.mgrid[0:1:5j, 0:2:3j]
print(pts.shape, pts[1, 0])
iy, ix = np.indices((3, 4))
print(iy + 10 * ix)
r = np.hypot(ox, oy).round().astype(int)
profile = np.bincount(r.ravel(), weights=(xx - 4).ravel() ** 2)
print("profile:", profile)
result = (disc, pts, profile)
