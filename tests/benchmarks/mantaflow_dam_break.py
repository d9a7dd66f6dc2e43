# mantaflow's FLIP on cases/dam_break.toml at 1/120 m cells, for tests/benchmarks/against_mantaflow.sh
# (not a test). Run by mantaflow's own interpreter:
#
#   OMP_NUM_THREADS=2 MANTA mantaflow_dam_break.py [STEPS] [WARMUP] [mic|mg] [DT]
#
# The tank is 1.0 x 0.5 x 0.6 m (mantaflow's y is up, so its grid is 120 x 72 x 60) and the
# water block 0.4 x 0.5 x 0.35 m at one end, 8 particles per cell as dunesim seeds them. A
# domain one unit long makes mantaflow's cell 1/120 (its dx is 1 / the largest grid size),
# so gravity 9.81 with addGravity's scaling is 9.81 m/s^2; the step is fixed (default 4 ms;
# dunesim's CFL step on this case is about 5.7 ms). The loop is mantaflow's FLIP example
# (scenes/flip01_simple.py) with its pressure solve preconditioned by modified incomplete
# Cholesky (mic) or its multigrid (mg). Prints one line: RESULT ... particle_steps_per_second.
import sys
import time

from manta import *

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
warmup = int(sys.argv[2]) if len(sys.argv) > 2 else 10
preconditioner = sys.argv[3] if len(sys.argv) > 3 else "mic"
dt = float(sys.argv[4]) if len(sys.argv) > 4 else 0.004

cells_per_metre = 120
solver = Solver(name="dam_break", gridSize=vec3(120, 72, 60), dim=3)
solver.timestep = dt
flags = solver.create(FlagGrid)
velocity = solver.create(MACGrid)
velocity_before = solver.create(MACGrid)
pressure = solver.create(RealGrid)
weights = solver.create(VecGrid)
particles = solver.create(BasicParticleSystem)
particle_velocity = particles.create(PdataVec3)

flags.initDomain(boundaryWidth=0)
block = Box(parent=solver, p0=vec3(0, 0, 0),
            p1=vec3(0.4 * cells_per_metre, 0.35 * cells_per_metre, 0.5 * cells_per_metre))
flags.updateFromLevelset(block.computeLevelset())
sampleFlagsWithParticles(flags=flags, parts=particles, discretization=2, randomness=0.5)
pc = PcMGDynamic if preconditioner == "mg" else PcMIC

started = None
for step in range(warmup + steps):
    if step == warmup:
        started = time.time()
    particles.advectInGrid(flags=flags, vel=velocity, integrationMode=IntRK2,
                           deleteInObstacle=False)
    mapPartsToMAC(vel=velocity, flags=flags, velOld=velocity_before, parts=particles,
                  partVel=particle_velocity, weight=weights)
    extrapolateMACFromWeight(vel=velocity, distance=2, weight=weights)
    markFluidCells(parts=particles, flags=flags)
    addGravity(flags=flags, vel=velocity, gravity=(0, -9.81, 0))
    setWallBcs(flags=flags, vel=velocity)
    solvePressure(flags=flags, vel=velocity, pressure=pressure, preconditioner=pc)
    setWallBcs(flags=flags, vel=velocity)
    extrapolateMACSimple(flags=flags, vel=velocity)
    flipVelocityUpdate(vel=velocity, velOld=velocity_before, flags=flags, parts=particles,
                       partVel=particle_velocity, flipRatio=0.95)
    solver.step()
seconds = time.time() - started
print("RESULT mantaflow preconditioner=%s dt=%g particles=%d steps=%d seconds_per_step %.4f "
      "particle_steps_per_second %.3e" % (preconditioner, dt, particles.pySize(), steps,
                                          seconds / steps, particles.pySize() * steps / seconds))
