package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Slurm clusters one backend talks to: the one its settings name, and one per login that
 * containers bring (multi-cri's CLUSTER_* variables). Each has its own client and poller, so the
 * jobs of a login are submitted, polled ({@code squeue --me}) and cancelled as that user.
 *
 * <p>Logins are kept in the durable store with the password sealed, so a restarted crigate can
 * still follow and stop their jobs. A login is forgotten when its last container is removed; which
 * containers use a login is kept here, under the same lock as admitting one, so a removal can never
 * forget a login that a container being created has just been admitted with.
 */
final class Clusters implements AutoCloseable {

  /** The key of the backend's own cluster; login keys always contain '@'. */
  static final String CONFIGURED = "configured";

  private static final Logger LOG = LoggerFactory.getLogger(Clusters.class);

  /** One way into Slurm and the poller that follows its jobs. */
  record Cluster(String key, SlurmClient client, JobPoller poller) {}

  private final Function<ClusterLogin, SlurmClient> connect;
  private final RecordStore records;
  private final LoginVault vault;
  private final Duration pollInterval;
  private final BiConsumer<String, JobState> onSettled;
  private final Cluster configured;
  private final Map<String, ClusterLogin> logins = new ConcurrentHashMap<>();
  private final Map<String, Cluster> open = new ConcurrentHashMap<>();
  /** Guards admitting and releasing; not a monitor, since admitting runs squeue over SSH under it. */
  private final ReentrantLock lock = new ReentrantLock();
  /** Login key to the ids of the containers admitted with it; guarded by {@link #lock}. */
  private final Map<String, Set<String>> users = new HashMap<>();

  /**
   * @param containersByLogin the ids of stored containers by the login key they name; any other
   *     stored login is what a crash between storing a login and storing its first container left
   *     behind, and is dropped
   */
  Clusters(SlurmClient configuredClient, Function<ClusterLogin, SlurmClient> connect, RecordStore records,
      LoginVault vault, Map<String, Set<String>> containersByLogin, Duration pollInterval,
      BiConsumer<String, JobState> onSettled) {
    this.connect = connect;
    this.records = records;
    this.vault = vault;
    this.pollInterval = pollInterval;
    this.onSettled = onSettled;
    this.configured = start(CONFIGURED, configuredClient);
    records.logins().values().forEach(stored -> {
      if (containersByLogin.containsKey(stored.key())) {
        remember(stored);
        users.put(stored.key(), new HashSet<>(containersByLogin.get(stored.key())));
      } else {
        records.removeLogin(stored.key());
      }
    });
  }

  private void remember(Records.Login stored) {
    try {
      logins.put(stored.key(), new ClusterLogin(stored.host(), stored.port(), stored.user(),
          vault.unseal(stored.sealedPassword(), stored.key())));
    } catch (IllegalStateException e) {
      LOG.warn("login {}: {}; its containers report Unavailable until they are removed", stored.key(), e.getMessage());
    }
  }

  private Cluster start(String key, SlurmClient client) {
    JobPoller poller = new JobPoller(key, client, pollInterval, job -> onSettled.accept(key, job));
    poller.start();
    return new Cluster(key, client, poller);
  }

  Cluster configured() {
    return configured;
  }

  /** The cluster of a login key ({@code null} or {@link #CONFIGURED} for the configured one), connecting on first use. */
  Cluster of(String loginKey) {
    if (loginKey == null || loginKey.equals(CONFIGURED)) {
      return configured;
    }
    return open.computeIfAbsent(loginKey, key -> {
      ClusterLogin login = logins.get(key);
      if (login == null) {
        throw new CrigateException.Unavailable("cluster login %s is not available on this node (its stored password "
            + "could not be unsealed); remove the container".formatted(key));
      }
      return start(key, connect.apply(login));
    });
  }

  /**
   * Admits a login a container brings and records that the container uses it: a login seen before
   * with the same password is reused; a new one, or a new password, must first run one squeue, so a
   * wrong password fails CreateContainer (PERMISSION_DENIED) instead of every later call.
   */
  Cluster admit(ClusterLogin login, String containerId) {
    lock.lock();
    try {
      Cluster cluster = login.equals(logins.get(login.key())) ? of(login.key()) : connectFresh(login);
      users.computeIfAbsent(login.key(), key -> new HashSet<>()).add(containerId);
      return cluster;
    } finally {
      lock.unlock();
    }
  }

  private Cluster connectFresh(ClusterLogin login) {
    String key = login.key();
    SlurmClient client = connect.apply(login);
    try {
      client.queue(Set.of());
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
    records.put(new Records.Login(key, login.host(), login.port(), login.user(), vault.seal(login.password(), key)));
    logins.put(key, login);
    Cluster fresh = start(key, client);
    Cluster previous = open.put(key, fresh);
    if (previous != null) {
      previous.poller().handOver(fresh.poller());
      previous.client().close();
    }
    return fresh;
  }

  /**
   * The container no longer uses the login (removed, or its creation failed); when no container
   * does, the login is forgotten: its connection, poller and stored password.
   */
  void release(String loginKey, String containerId) {
    lock.lock();
    try {
      Set<String> ids = users.get(loginKey);
      if (ids != null) {
        ids.remove(containerId);
        if (!ids.isEmpty()) {
          return;
        }
      }
      users.remove(loginKey);
      // logins first: a concurrent of() then fails instead of opening a cluster nobody closes
      logins.remove(loginKey);
      Cluster cluster = open.remove(loginKey);
      if (cluster != null) {
        close(cluster);
      }
      records.removeLogin(loginKey);
    } finally {
      lock.unlock();
    }
  }

  private static void close(Cluster cluster) {
    cluster.poller().close();
    cluster.client().close();
  }

  @Override
  public void close() {
    open.values().forEach(Clusters::close);
    close(configured);
  }
}
