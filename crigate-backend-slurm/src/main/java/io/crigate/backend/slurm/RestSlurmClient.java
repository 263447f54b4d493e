package io.crigate.backend.slurm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Optional;

/**
 * Slurm through slurmrestd with JWT authentication. sbatch options become fields of the job
 * description; an option the REST API has no field for is refused, never silently dropped.
 */
final class RestSlurmClient implements SlurmClient {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  /** sbatch long option -> job description field of the v0.0.38 API, and whether it is numeric. */
  private static final Map<String, String> TEXT_FIELDS = Map.of("partition", "partition", "account", "account",
      "qos", "qos", "constraint", "constraints", "nodelist", "required_nodes", "exclude", "excluded_nodes",
      "gres", "gres", "reservation", "reservation");
  private static final Map<String, String> NUMBER_FIELDS = Map.of("nodes", "nodes", "ntasks", "tasks",
      "cpus-per-task", "cpus_per_task", "ntasks-per-node", "tasks_per_node", "mincpus", "minimum_cpus_per_node",
      "time", "time_limit");

  private final SlurmSettings.Rest settings;
  // slurmrestd answers an h2c upgrade offer with a response the JDK client cannot parse.
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();
  private final ObjectMapper json = new ObjectMapper();

  RestSlurmClient(SlurmSettings.Rest settings) {
    this.settings = settings;
  }

  @Override
  public long submit(JobSpec job) {
    if (!job.submitEnv().isEmpty()) {
      throw new CrigateException.InvalidArgument("JOB_CUSTOM_CONFIG (SBATCH_* input variables) needs sbatch; "
          + "transport rest cannot apply it");
    }
    ObjectNode body = json.createObjectNode();
    body.put("script", job.script());
    ObjectNode desc = body.putObject("job");
    desc.put("name", job.name()).put("comment", job.comment()).put("current_working_directory", job.workDir())
        .put("standard_output", job.stdoutPath()).put("standard_error", job.stderrPath());
    desc.putObject("environment").put("PATH", DEFAULT_PATH);
    job.options().asMap().forEach((option, value) -> describe(desc, option, value));
    JsonNode answer = call("POST", "/slurm/%s/job/submit".formatted(settings.version()), body.toString(), true);
    if (!answer.path("job_id").canConvertToLong()) {
      throw new CrigateException.InvalidArgument("slurmrestd rejected job %s: %s".formatted(job.name(), errors(answer)));
    }
    return answer.path("job_id").asLong();
  }

  private static void describe(ObjectNode desc, String option, String value) {
    if (TEXT_FIELDS.containsKey(option)) {
      desc.put(TEXT_FIELDS.get(option), value);
    } else if (NUMBER_FIELDS.containsKey(option) && value.matches("\\d+")) {
      desc.put(NUMBER_FIELDS.get(option), Long.parseLong(value));
    } else if (option.equals("mem") && value.matches("\\d+[MG]?")) {
      long megabytes = Long.parseLong(value.replaceAll("[MG]", "")) * (value.endsWith("G") ? 1024 : 1);
      desc.put("memory_per_node", megabytes);
    } else if (option.equals("exclusive") && value.isEmpty()) {
      desc.put("exclusive", "true");
    } else {
      throw new CrigateException.InvalidArgument(
          "sbatch option --%s=%s has no slurmrestd equivalent here; use transport local or ssh".formatted(option, value));
    }
  }

  @Override
  public List<JobState> queue(Set<Long> jobIds) {
    List<JobState> jobs = new ArrayList<>();
    for (JobState job : jobs()) {
      if (jobIds.contains(job.jobId()) && job.name().startsWith(NAME_PREFIX)) {
        jobs.add(job);
      }
    }
    return jobs;
  }

  /** Every job slurmctld holds, exit codes included, in one request. */
  private List<JobState> jobs() {
    JsonNode answer = call("GET", "/slurm/%s/jobs".formatted(settings.version()), null, false);
    List<JobState> jobs = new ArrayList<>();
    for (JsonNode job : answer.path("jobs")) {
      jobs.add(state(job));
    }
    return jobs;
  }

  private JobState state(JsonNode job) {
    return new JobState(job.path("job_id").asLong(), job.path("name").asText(), job.path("job_state").asText(),
        job.path("state_reason").asText("None"), Optional.of(JobState.Exit.ofWaitStatus(job.path("exit_code").asInt(0))),
        epoch(job.path("start_time").asLong(0)), epoch(job.path("end_time").asLong(0)));
  }

  private static Optional<Instant> epoch(long seconds) {
    return seconds <= 0 ? Optional.empty() : Optional.of(Instant.ofEpochSecond(seconds));
  }

  @Override
  public Map<Long, JobState> finals(Collection<Long> jobIds) {
    Map<Long, JobState> found = new HashMap<>();
    for (JobState job : jobs()) {
      if (jobIds.contains(job.jobId()) && job.settled()) {
        found.put(job.jobId(), job);
      }
    }
    return found;
  }

  @Override
  public Map<String, Long> findByNames(Collection<String> names) {
    Map<String, Long> found = new HashMap<>();
    jobs().stream().filter(job -> names.contains(job.name())).forEach(job -> found.putIfAbsent(job.name(), job.jobId()));
    return found;
  }

  @Override
  public void cancel(List<Long> jobIds, String signal) {
    String query = signal.isEmpty() ? "" : "?signal=" + signal;
    for (long jobId : jobIds) {
      call("DELETE", "/slurm/%s/job/%d%s".formatted(settings.version(), jobId, query), null, false);
    }
  }

  @Override
  public CommandResult exec(long jobId, List<String> argv) {
    throw new CrigateException.Unimplemented("ExecSync needs srun; slurmrestd cannot run steps: use transport local or ssh");
  }

  @Override
  public Optional<CommandResult> runOnCluster(List<String> argv) {
    return Optional.empty();
  }

  /** slurmrestd has no interactive step. */
  @Override
  public Optional<Interactive.Launcher> interactive() {
    return Optional.empty();
  }

  private JsonNode call(String method, String path, String body, boolean submission) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(settings.url() + path)).timeout(TIMEOUT)
        .header("X-SLURM-USER-NAME", settings.user())
        .header("X-SLURM-USER-TOKEN", token())
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new CrigateException.Unavailable("slurmrestd %s unreachable: %s".formatted(settings.url(), e.getMessage()), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("interrupted while calling slurmrestd", e);
    }
    JsonNode answer = parse(response.body());
    if (response.statusCode() == 401 || response.statusCode() == 403) {
      // the token (expired, wrong user, wrong key) is refused: retrying later will not help
      throw new CrigateException.PermissionDenied("slurmrestd refused the token for user %s (HTTP %d)"
          .formatted(settings.user(), response.statusCode()));
    }
    if (response.statusCode() >= 500 || response.statusCode() >= 400 && !submission && !method.equals("DELETE")) {
      String errors = errors(answer);
      if (method.equals("DELETE") && errors.contains("already completing or completed")) {
        return answer;
      }
      throw new CrigateException.Unavailable("slurmrestd %s %s: HTTP %d %s".formatted(method, path,
          response.statusCode(), errors));
    }
    return answer;
  }

  private JsonNode parse(String body) {
    try {
      return json.readTree(body.isEmpty() ? "{}" : body);
    } catch (IOException e) {
      return json.createObjectNode();
    }
  }

  private static String errors(JsonNode answer) {
    List<String> messages = new ArrayList<>();
    answer.path("errors").forEach(e -> messages.add(e.path("error").asText() + " " + e.path("description").asText()));
    return String.join("; ", messages).strip();
  }

  /** Read per call from the token file when one is configured, so an operator can rotate it. */
  private String token() {
    if (settings.tokenFile() == null) {
      return SlurmToken.usable(settings.token(), settings.user(), Instant.now());
    }
    try {
      return SlurmToken.usable(Files.readString(Path.of(settings.tokenFile())).strip(), settings.user(), Instant.now());
    } catch (IOException e) {
      throw new CrigateException.Unavailable("cannot read slurmrestd token file %s: %s"
          .formatted(settings.tokenFile(), e.getMessage()), e);
    }
  }

  @Override
  public void close() {
    http.close();
  }
}
