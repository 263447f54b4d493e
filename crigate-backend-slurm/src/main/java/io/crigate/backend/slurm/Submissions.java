package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.CreateContainerRequest;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A container's way into Slurm: CreateContainer plans its job and stores it (CREATED);
 * StartContainer marks it submitting on disk, runs sbatch, and stores the job id (started). A
 * crash between sbatch and the job id leaves the marker, which {@link Reconciler} settles.
 */
final class Submissions {

  private static final Logger LOG = LoggerFactory.getLogger(Submissions.class);

  private final Inventory inventory;
  private final Clusters clusters;
  private final Reconciler reconciler;
  private final JobFollowing following;
  private final LoginAdmission admission;
  private final JobPlanner planner;
  private final SealedEnv sealedEnv;
  private final SandboxDirectory dirs;
  /** Who the backend's own jobs run as, when not crigate's user; a container's own login overrides it. */
  private final Optional<String> jobUser;
  private final AtomicBoolean jobUserUnknownLogged = new AtomicBoolean();
  /**
   * Jobs planned at CreateContainer, kept until StartContainer so the start, which the kubelet
   * issues right after, neither parses the configs nor plans again. A restart loses them; start
   * then plans from the stored configs.
   */
  private final Map<String, JobSpec> prepared = new ConcurrentHashMap<>();

  Submissions(Inventory inventory, Clusters clusters, Reconciler reconciler, JobFollowing following,
      LoginAdmission admission, JobPlanner planner, SealedEnv sealedEnv, SandboxDirectory dirs, Optional<String> jobUser) {
    this.inventory = inventory;
    this.clusters = clusters;
    this.reconciler = reconciler;
    this.following = following;
    this.admission = admission;
    this.planner = planner;
    this.sealedEnv = sealedEnv;
    this.dirs = dirs;
    this.jobUser = jobUser;
  }

  /** Plans the job, admits the container's login, stores the container; returns its id. */
  String create(CreateContainerRequest request) {
    Records.Sandbox sandbox = inventory.sandbox(request.getPodSandboxId());
    if (!sandbox.ready()) {
      throw new CrigateException.FailedPrecondition("sandbox %s is stopped".formatted(sandbox.id()));
    }
    ContainerConfig config = request.getConfig();
    if (!config.hasMetadata()) {
      throw new CrigateException.InvalidArgument("CreateContainer needs config.metadata");
    }
    String id = Ids.next();
    Path dir = dirs.container(sandbox.id(), id);
    // Planning validates everything the pod supplied before anything is written.
    JobSpec spec = jobSpec(sandbox, config, id);
    Optional<ClusterLogin> login = admission.admit(config, id);
    Records.Container container = new Records.Container(id, sandbox.id(),
        sealedEnv.seal(LoginAdmission.withoutPassword(config), id).toByteArray(),
        inventory.nowNanos(), 0, false, 0, false, null, login.map(ClusterLogin::key).orElse(null));
    try {
      SandboxDirectory.create(dir);
      handToJobUser(dir, id, login);
      inventory.save(container);
    } catch (RuntimeException e) {
      // nothing half-made stays behind: the kubelet retries CreateContainer with a fresh id
      SandboxDirectory.delete(dir);
      login.ifPresent(l -> clusters.release(l.key(), id));
      throw e;
    }
    prepared.put(id, spec);
    return id;
  }

  /**
   * Slurm opens the job's stdout and stderr in the container's directory as the user the job runs
   * as, so that user must own it: on a shared file system with one user database it has the same
   * name on this node. A user unknown here leaves the directory as it is (a site may map users
   * otherwise), said once per backend for its own user, and per container for a container's login.
   */
  private void handToJobUser(Path dir, String id, Optional<ClusterLogin> login) {
    if (login.isPresent()) {
      if (!SandboxDirectory.giveTo(dir, login.get().user())) {
        LOG.info("container {}: user {} is unknown on this node; {} keeps its owner", id, login.get().user(), dir);
      }
    } else if (jobUser.isPresent() && !SandboxDirectory.giveTo(dir, jobUser.get())
        && !jobUserUnknownLogged.getAndSet(true)) {
      LOG.info("the backend's jobs run as {}, a user unknown on this node: their directories keep crigate's user as owner,"
          + " so the work dir must let {} write there", jobUser.get(), jobUser.get());
    }
  }

  /** The job a container becomes; planning validates everything the pod supplied. */
  private JobSpec jobSpec(Records.Sandbox sandbox, ContainerConfig config, String id) {
    Path dir = dirs.container(sandbox.id(), id);
    JobPlan plan = planner.plan(config, Inventory.podConfig(sandbox), sandbox.id(), id);
    return new JobSpec(SlurmClient.NAME_PREFIX + id, id, dir.toString(), dirs.stdout(sandbox.id(), id).toString(),
        dirs.stderr(sandbox.id(), id).toString(), JobScript.render(plan, id, sandbox.id()), plan.options(), plan.submitEnv());
  }

  /** Submits the container's job, at most once whatever crashes or connection losses come in between. */
  void start(String id) {
    try (KeyedLocks.Held held = inventory.hold(id)) {
      Records.Container container = reconciler.reconcile(id);
      if (container.started()) {
        throw new CrigateException.FailedPrecondition("container %s already started as slurm job %d"
            .formatted(id, container.jobId()));
      }
      if (container.finish() != null) {
        throw new CrigateException.FailedPrecondition("container %s has exited (%s): %s"
            .formatted(id, container.finish().reason(), container.finish().message()));
      }
      JobSpec planned = prepared.remove(id);
      JobSpec spec = planned != null ? planned : jobSpec(inventory.sandbox(container.sandboxId()),
          sealedEnv.open(Inventory.containerConfig(container), id), id);
      Clusters.Cluster cluster = clusters.of(container.login());
      cluster.poller().submitting();
      // On disk before sbatch: after a crash, a job Slurm no longer knows by name (purged from
      // accounting, or slurmrestd, which lists live jobs only) is never submitted a second time.
      Records.Container marked = inventory.save(container.submitting(true));
      long jobId;
      try {
        jobId = cluster.client().submit(spec);
      } catch (CrigateException.Unavailable e) {
        // sbatch may have been accepted before the connection broke: the marker stays, and the
        // next attempt looks the job up by name before anything else.
        throw e;
      } catch (RuntimeException e) {
        inventory.save(container.submitting(false)); // sbatch answered and refused: nothing was submitted
        throw e;
      }
      following.follow(inventory.saveLater(marked.submitted(jobId, inventory.nowNanos())));
    }
  }

  /** The container is being removed: a job planned for it is no longer wanted. */
  void discard(String id) {
    prepared.remove(id);
  }
}
