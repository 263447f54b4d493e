package io.crigate.cli.ctl;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.cri.v1.Container;
import io.crigate.api.cri.v1.ContainerMetadata;
import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.PodSandbox;
import io.crigate.api.cri.v1.PodSandboxMetadata;
import io.grpc.Status;
import java.io.IOException;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Runs ctl commands as a user would, against a CRI server on a real unix socket. */
class CtlCommandTest {

  private static final String POD_ID = "3a746010ccb6ef95ad23a0747286c2400dc3c7496c76580a4f5a868415166de1";
  private static final String RUNNING = "dea1e5b3d4f754e5a43a9b06349c4ae4026d7856767f91d8db18a7f2c726e685";
  private static final String EXITED = "dea2000000000000000000000000000000000000000000000000000000000000";

  @TempDir Path dir;
  private FakeCriServer cri;

  record Run(int exitCode, String out, String err) {}

  @BeforeEach
  void start() throws IOException {
    cri = new FakeCriServer(dir.resolve("cri.sock"));
    cri.pods.add(
        PodSandbox.newBuilder()
            .setId(POD_ID)
            .setMetadata(PodSandboxMetadata.newBuilder().setName("web").setNamespace("default"))
            .build());
    cri.containers.add(container(RUNNING, "nginx", ContainerState.CONTAINER_RUNNING));
    cri.containers.add(container(EXITED, "init", ContainerState.CONTAINER_EXITED));
  }

  @AfterEach
  void stop() throws InterruptedException {
    cri.close();
  }

  private static Container container(String id, String name, ContainerState state) {
    return Container.newBuilder()
        .setId(id)
        .setPodSandboxId(POD_ID)
        .setMetadata(ContainerMetadata.newBuilder().setName(name))
        .setImage(ImageSpec.newBuilder().setImage("127.0.0.1:5000/crigate/demo:v1"))
        .setState(state)
        .build();
  }

  private Run ctl(String... args) {
    return ctlAt(cri.endpoint, args);
  }

  private static Run ctlAt(String endpoint, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new CtlCommand());
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    String[] full = new String[args.length + 2];
    full[0] = "-r";
    full[1] = endpoint;
    System.arraycopy(args, 0, full, 2, args.length);
    int exit = cli.execute(full);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void uniquePrefixIsResolvedBeforeTheCall() {
    Run run = ctl("inspect", "dea1");

    assertThat(run.exitCode()).isZero();
    assertThat(cri.calls).containsExactly("ContainerStatus " + RUNNING);
    // the runtime's verbose info string is embedded as JSON, not as an escaped string
    assertThat(run.out()).contains("\"pid\": 42").contains("\"id\": \"" + RUNNING + "\"");
  }

  @Test
  void ambiguousPrefixFailsNamingTheCandidatesAndCallsNothing() {
    Run run = ctl("inspect", "dea");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo(
            "crigate ctl inspect: container id prefix dea is ambiguous, it matches %s, %s%n"
                .formatted(RUNNING, EXITED));
    assertThat(cri.calls).isEmpty();
  }

  @Test
  void psShowsRunningContainersWithTheirPodName() {
    Run run = ctl("ps");

    assertThat(run.exitCode()).isZero();
    List<List<String>> rows =
        run.out().lines().map(line -> List.of(line.split(" {3,}"))).toList();
    assertThat(rows.getFirst())
        .containsExactly("CONTAINER", "IMAGE", "CREATED", "STATE", "NAME", "ATTEMPT", "POD ID", "POD");
    assertThat(rows).hasSize(2);
    assertThat(rows.get(1))
        .containsExactly(
            "dea1e5b3d4f75", "127.0.0.1:5000/crigate/demo:v1", rows.get(1).get(2), "Running",
            "nginx", "0", "3a746010ccb6e", "web");
  }

  @Test
  void psAllQuietPrintsEveryFullId() {
    Run run = ctl("ps", "-a", "-q");

    assertThat(run.out().lines()).containsExactlyInAnyOrder(RUNNING, EXITED);
  }

  @Test
  void execPrintsBothStreamsAndExitsWithTheCommandsCode() {
    Run run = ctl("exec", "dea1", "--", "ls", "-l", "/");

    assertThat(run.exitCode()).isEqualTo(7);
    assertThat(run.out()).isEqualTo("out:ls -l /\n");
    assertThat(run.err()).isEqualTo("err\n");
    assertThat(cri.calls).containsExactly("ExecSync " + RUNNING + " [ls, -l, /]");
  }

  @Test
  void execWithoutSeparatorKeepsOptionLikeWordsInTheCommand() {
    Run run = ctl("exec", "dea1", "ls", "-l");

    assertThat(run.exitCode()).isEqualTo(7);
    assertThat(cri.calls).containsExactly("ExecSync " + RUNNING + " [ls, -l]");
  }

  @Test
  void rmRefusesARunningContainerWithoutForce() {
    Run run = ctl("rm", "dea1");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("container " + RUNNING + " is still active; stop it first or use -f");
    assertThat(cri.calls).isEmpty();
  }

  @Test
  void rmForceStopsThenRemoves() {
    Run run = ctl("rm", "-f", "dea1");

    assertThat(run.exitCode()).isZero();
    assertThat(cri.calls)
        .containsExactly("StopContainer " + RUNNING + " timeout=0", "RemoveContainer " + RUNNING);
    assertThat(run.out()).isEqualTo(RUNNING + "\n");
  }

  @Test
  void serverStatusIsReportedWithCodeAndDescription() {
    cri.removeFailure = Status.FAILED_PRECONDITION.withDescription("backend slurm is draining");

    Run run = ctl("rm", "dea2");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).isEqualTo("crigate ctl rm: FAILED_PRECONDITION: backend slurm is draining\n");
  }

  @Test
  void missingSocketSaysSoWithoutAStackTrace() {
    Path absent = dir.resolve("absent.sock");

    Run run = ctlAt("unix://" + absent, "version");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo(
            "crigate ctl version: cannot connect to unix://%s: is crigate running? (no socket file there)%n"
                .formatted(absent));
  }

  @Test
  void timeoutEndsACallTheServerNeverAnswers() {
    cri.versionHangs = true;

    Run run = ctl("--timeout", "300ms", "version");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("gave no answer within PT0.3S (DEADLINE_EXCEEDED");
  }

  @Test
  void runpSendsTheParsedConfigAndPrintsThePodId() throws IOException {
    Path config = Files.writeString(dir.resolve("pod.yaml"), "metadata: {name: p1, uid: u}\n");

    Run run = ctl("runp", "--runtime", "slurm", config.toString());

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("new-pod-id\n");
    assertThat(cri.calls).containsExactly("RunPodSandbox p1 handler=slurm");
  }

  @Test
  void runpWithABadConfigNamesTheFileAndCallsNothing() throws IOException {
    Path config = Files.writeString(dir.resolve("pod.yaml"), "metadata: {name: p1}\nhostnme: x\n");

    Run run = ctl("runp", config.toString());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).startsWith("crigate ctl runp: " + config + ": ").contains("hostnme");
    assertThat(cri.calls).isEmpty();
  }

  @Test
  void runCreatesAndStartsInTheNewPod() throws IOException {
    Path pod = Files.writeString(dir.resolve("pod.json"), "{\"metadata\": {\"name\": \"p1\"}}");
    Path container = Files.writeString(dir.resolve("c.yaml"), "metadata: {name: c1}\n");

    Run run = ctl("run", container.toString(), pod.toString());

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("new-container-id\n");
    assertThat(cri.calls)
        .containsExactly(
            "RunPodSandbox p1 handler=",
            "CreateContainer new-pod-id c1",
            "StartContainer new-container-id");
  }

  @Test
  void runRemovesThePodItMadeWhenCreateFails() throws IOException {
    cri.createFailure = Status.INVALID_ARGUMENT.withDescription("image is required");
    Path pod = Files.writeString(dir.resolve("pod.json"), "{\"metadata\": {\"name\": \"p1\"}}");
    Path container = Files.writeString(dir.resolve("c.yaml"), "metadata: {name: c1}\n");

    Run run = ctl("run", container.toString(), pod.toString());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).isEqualTo("crigate ctl run: INVALID_ARGUMENT: image is required\n");
    assertThat(cri.calls)
        .containsExactly(
            "RunPodSandbox p1 handler=",
            "CreateContainer new-pod-id c1",
            "StopPodSandbox new-pod-id",
            "RemovePodSandbox new-pod-id");
  }

  @Test
  void missingArgumentIsAUsageError() {
    Run run = ctl("create", POD_ID);

    assertThat(run.exitCode()).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(run.err()).contains("Missing required parameters").contains("Usage: ctl create");
  }

  @Test
  void logsReassemblesTailsAndSplitsStreams() throws IOException {
    Path log =
        Files.writeString(
            dir.resolve("c.log"),
            """
            2026-11-22T00:00:01.000000000Z stdout F first
            2026-11-22T00:00:02.000000000Z stdout P sec
            2026-11-22T00:00:02.500000000Z stderr F warning
            2026-11-22T00:00:03.000000000Z stdout F ond
            2026-11-22T00:00:04.000000000Z stdout F third
            """);
    cri.logPaths.put(EXITED, log.toString());

    Run all = ctl("logs", "dea2");
    Run tail = ctl("logs", "--tail", "2", "-t", "dea2");

    assertThat(all.out()).isEqualTo("first\nsecond\nthird\n");
    assertThat(all.err()).isEqualTo("warning\n");
    // the last two whole lines are "ond"-completed "second" (at 3s) and "third"; warning came before
    assertThat(tail.out())
        .isEqualTo("2026-11-22T00:00:03.000000000Z second\n2026-11-22T00:00:04.000000000Z third\n");
    assertThat(tail.err()).isEmpty();
  }

  @Test
  void followingTheLogOfAnExitedContainerPrintsItAndReturns() throws IOException {
    Path log =
        Files.writeString(
            dir.resolve("c.log"),
            "2026-11-22T00:00:01.000000000Z stdout F only line\n"
                + "2026-11-22T00:00:02.000000000Z stdout P unfinished");
    cri.logPaths.put(EXITED, log.toString());

    Run run = ctl("logs", "-f", "dea2");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("only line\n");
    // one status to find the log, one to learn the container no longer runs
    assertThat(cri.calls).containsExactly("ContainerStatus " + EXITED, "ContainerStatus " + EXITED);
  }

  @Test
  void logsOfAContainerWithoutLogPathExplainWhy() {
    Run run = ctl("logs", "dea2");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("has no log path (its pod config sets no log_directory)");
  }

  @Test
  void execInteractiveStreamsStdinThroughTheStreamingServerAndExitsWithTheCommandsCode() {
    InputStream console = System.in;
    System.setIn(new ByteArrayInputStream("héllo\n".getBytes(StandardCharsets.UTF_8)));
    Run run;
    try {
      run = ctl("exec", "-i", "dea1", "--", "cat", "-");
    } finally {
      System.setIn(console);
    }

    assertThat(cri.calls).contains("Exec " + RUNNING + " [cat, -] stdin=true tty=false");
    assertThat(run.out()).isEqualTo("HÉLLO\n");
    assertThat(run.err()).isEqualTo("ran [cat, -]\n");
    assertThat(run.exitCode()).isEqualTo(5);
  }

  @Test
  void attachPrintsTheContainersOutput() {
    Run run = ctl("attach", "dea1");

    assertThat(cri.calls).contains("Attach " + RUNNING + " stdin=false");
    assertThat(run.out()).isEqualTo("attached to " + RUNNING);
    assertThat(run.exitCode()).isZero();
  }

  @Test
  void statsShowsUsageOfOneContainer() {
    Run run = ctl("stats", "dea1");

    assertThat(cri.calls).contains("ListContainerStats " + RUNNING);
    assertThat(run.out()).contains("nginx").contains("1500").contains("2MB");
  }

  @Test
  void statspShowsUsageOfPods() {
    Run run = ctl("statsp");

    assertThat(cri.calls).contains("ListPodSandboxStats ");
    assertThat(run.out()).contains("web").contains("2500");
  }

  @Test
  void updateSendsTheNewResources() {
    Run run = ctl("update", "--cpu-quota", "50000", "--memory", "268435456", "dea1");

    assertThat(run.exitCode()).isZero();
    assertThat(cri.calls).contains("UpdateContainerResources " + RUNNING + " quota=50000 memory=268435456");
  }

  @Test
  void eventsPrintsEachEvent() {
    Run run = ctl("events");

    // created_at 1e9 ns after the epoch
    assertThat(run.out()).contains("1970-01-01T00:00:01Z CONTAINER_STOPPED_EVENT container=" + RUNNING);
  }

  private static Run ctlWithout(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new CtlCommand());
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void configSetsKeysInCrictlsFormatAndCommandsUseThem() throws IOException {
    String file = dir.resolve("crictl.yaml").toString();

    Run set = ctlWithout("--config", file, "config", "--set", "runtime-endpoint=" + cri.endpoint + ",timeout=7");
    Run positional = ctlWithout("--config", file, "config", "debug", "true");

    assertThat(set.exitCode()).as(set.err()).isZero();
    assertThat(positional.exitCode()).isZero();
    assertThat(Files.readString(Path.of(file)))
        .isEqualTo("runtime-endpoint: " + cri.endpoint + "\ntimeout: 7\ndebug: true\n");
    assertThat(ctlWithout("--config", file, "config", "--get", "timeout").out()).isEqualTo("7\n");
    assertThat(ctlWithout("--config", file, "config", "--list").out()).contains("runtime-endpoint").contains("debug");

    Run version = ctlWithout("--config", file, "version");
    assertThat(version.exitCode()).as("no -r: the file's runtime-endpoint").isZero();
    assertThat(version.out()).contains("fake");
  }

  @Test
  void configRefusesUnknownKeysAndBadValuesByName() throws IOException {
    String file = dir.resolve("crictl.yaml").toString();

    Run unknown = ctlWithout("--config", file, "config", "--set", "runtime-endpont=unix:///x.sock");
    Run timeout = ctlWithout("--config", file, "config", "--set", "timeout=10s");
    Files.writeString(Path.of(file), "runtime-endpoint: unix:///x.sock\nimage-endpiont: unix:///x.sock\n");
    Run readingBadFile = ctlWithout("--config", file, "version");

    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err()).contains("unknown key 'runtime-endpont'").contains("runtime-endpoint");
    assertThat(timeout.err()).contains("timeout is whole seconds, e.g. 10, not '10s'");
    assertThat(readingBadFile.exitCode()).isEqualTo(1);
    assertThat(readingBadFile.err()).contains("unknown key 'image-endpiont'");
  }

  @Test
  void portForwardRefusesPortsThatAreNoPorts() {
    Run run = ctl("port-forward", "3a74", "8080:http");
    Run zero = ctl("port-forward", "3a74", "0");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("'8080:http' is not [LOCAL-PORT:]REMOTE-PORT");
    assertThat(zero.err()).contains("'0' is not [LOCAL-PORT:]REMOTE-PORT");
    assertThat(cri.calls).as("nothing listened, nothing asked").doesNotContain("PortForward");
  }
}
