package io.crigate.backend.slurm;

/**
 * crigate "dying" at a chosen point: an Error, so that no catch of the code under test runs and
 * nothing after the point is stored, as after a real crash.
 */
final class SimulatedCrash extends Error {
  SimulatedCrash() {
    super("simulated crash after sbatch");
  }
}
