package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * still follow and stop their jobs.
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

  /**
   * @param loginsInUse the login keys stored containers name; any other stored login is what a crash
   *     between storing a login and storing its first container left behind, and is dropped
   */
  Clusters(SlurmClient configuredClient, Function<ClusterLogin, SlurmClient> connect, RecordStore records,
      LoginVault vault, Set<String> loginsInUse, Duration pollInterval, BiConsumer<String, JobState> onSettled) {
    this.connect = connect;
    this.records = records;
    this.vault = vault;
    this.pollInterval = pollInterval;
    this.onSettled = onSettled;
    this.configured = start(CONFIGURED, configuredClient);
    records.logins().values().forEach(stored -> {
      if (loginsInUse.contains(stored.key())) {
        remember(stored);
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
   * Admits a login a container brings: a login seen before with the same password is reused; a new
   * one, or a new password, must first run one squeue, so a wrong password fails CreateContainer
   * (PERMISSION_DENIED) instead of every later call.
   */
  synchronized Cluster admit(ClusterLogin login) {
    String key = login.key();
    if (login.equals(logins.get(key))) {
      return of(key);
    }
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

  /** Forgets a login no container uses any more: its connection, poller and stored password. */
  synchronized void release(String loginKey) {
    Cluster cluster = open.remove(loginKey);
    if (cluster != null) {
      close(cluster);
    }
    logins.remove(loginKey);
    records.removeLogin(loginKey);
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
