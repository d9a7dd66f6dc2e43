"""ParaView's own pipeline on a dunesim frame, for comparison with dunesim_surface: SPH
interpolation of the particles onto the same sample grid (vtkSPHInterpolator, quintic kernel
with the same support R), then the contour filter (flying edges) at half the largest Shepard
sum. Prints the seconds of each step.

    pvpython paraview_sph_surface.py FRAME.h5 SAMPLE_SPACING KERNEL_RADIUS
"""
import sys
import time

import h5py, numpy as np
from vtkmodules.util import numpy_support
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkPolyData, vtkImageData
from vtkmodules.vtkFiltersPoints import vtkSPHInterpolator, vtkSPHQuinticKernel
from vtkmodules.vtkCommonDataModel import vtkStaticPointLocator
from vtkmodules.vtkFiltersCore import vtkFlyingEdges3D
frame, h, R = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
t0 = time.time()
x = h5py.File(frame)['particles/position'][:]
pts = vtkPoints(); pts.SetData(numpy_support.numpy_to_vtk(x, deep=True))
cloud = vtkPolyData(); cloud.SetPoints(pts)
ones = numpy_support.numpy_to_vtk(np.ones(len(x)), deep=True); ones.SetName("one")
cloud.GetPointData().AddArray(ones)
lo, hi = x.min(axis=0) - R, x.max(axis=0) + R
dims = [int(np.ceil((hi[a] - lo[a]) / h)) + 1 for a in range(3)]
image = vtkImageData(); image.SetOrigin(*lo); image.SetSpacing(h, h, h); image.SetDimensions(*dims)
t1 = time.time()
locator = vtkStaticPointLocator(); locator.SetDataSet(cloud); locator.BuildLocator()
kernel = vtkSPHQuinticKernel(); kernel.SetSpatialStep(R / 3.0)  # quintic support is 3 steps
sph = vtkSPHInterpolator(); sph.SetInputData(image); sph.SetSourceData(cloud)
sph.SetKernel(kernel); sph.SetLocator(locator); sph.SetShepardSumArrayName("shepard")
sph.ComputeShepardSumOn(); sph.Update()
t2 = time.time()
out = sph.GetOutput(); out.GetPointData().SetActiveScalars("shepard")
rng = out.GetPointData().GetArray("shepard").GetRange()
contour = vtkFlyingEdges3D(); contour.SetInputData(out); contour.SetValue(0, 0.5 * rng[1]); contour.Update()
t3 = time.time()
print(f"samples {dims[0]}x{dims[1]}x{dims[2]} = {dims[0]*dims[1]*dims[2]}, setup {t1-t0:.2f} s, SPH interpolation {t2-t1:.2f} s, contour {t3-t2:.2f} s, SPH+contour {t3-t1:.2f} s, triangles {contour.GetOutput().GetNumberOfCells()}", flush=True)
