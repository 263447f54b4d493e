package io.crigate.core.dump;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.AuthConfig;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.CreateContainerRequest;
import io.crigate.api.cri.v1.CreateContainerResponse;
import io.crigate.api.cri.v1.ImageServiceGrpc;
import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.KeyValue;
import io.crigate.api.cri.v1.PullImageRequest;
import io.crigate.api.cri.v1.PullImageResponse;
import io.crigate.api.cri.v1.RuntimeServiceGrpc;
import io.crigate.api.cri.v1.StopContainerRequest;
import io.crigate.api.cri.v1.StopContainerResponse;
import io.crigate.api.cri.v1.VersionRequest;
import io.crigate.api.cri.v1.VersionResponse;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DumpInterceptorTest {

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);

  private final List<Object> received = new CopyOnWriteArrayList<>();
  private final StringWriter out = new StringWriter();
  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void stop() {
    if (channel != null) {
      channel.shutdownNow();
      server.shutdownNow();
    }
  }

  @Test
  void fullJsonDumpHasEnvelopeAndRedactedMessagesWhileTheHandlerGetsTheSecrets() throws IOException {
    DumpInterceptor dump = serve("full:.*", DumpFormat.JSON, out, AsyncDumpWriter.QUEUE_CAPACITY);

    ImageServiceGrpc.newBlockingStub(channel).pullImage(PullImageRequest.newBuilder()
        .setImage(ImageSpec.newBuilder().setImage("registry/app:1"))
        .setAuth(AuthConfig.newBuilder().setUsername("bob").setPassword("hunter2"))
        .build());
    RuntimeServiceGrpc.newBlockingStub(channel).createContainer(CreateContainerRequest.newBuilder()
        .setPodSandboxId("pod-1")
        .setConfig(ContainerConfig.newBuilder().addEnvs(KeyValue.newBuilder().setKey("DB_PASSWORD")
            .setValue(ByteString.copyFromUtf8("s3cret"))))
        .build());
    dump.close();

    List<JsonNode> records = jsonLines();
    assertThat(records).hasSize(2);
    JsonNode pull = records.get(0);
    assertThat(pull.get("time").asText()).isEqualTo("2026-01-02T03:04:05Z");
    assertThat(pull.get("method").asText()).isEqualTo("PullImage");
    assertThat(pull.get("code").asText()).isEqualTo("OK");
    assertThat(pull.get("latencyMs").asDouble()).isPositive();
    assertThat(pull.at("/request/image/image").asText()).isEqualTo("registry/app:1");
    assertThat(pull.at("/request/auth/password").asText()).isEqualTo(SecretRedactor.REDACTED);
    assertThat(pull.at("/response/image_ref").asText()).isEqualTo("sha256:app");
    assertThat(out.toString()).doesNotContain("hunter2").doesNotContain("s3cret");
    JsonNode create = records.get(1);
    assertThat(create.at("/ids/pod_sandbox_id").asText()).isEqualTo("pod-1");
    assertThat(create.at("/ids/container_id").asText()).isEqualTo("ctr-1");
    assertThat(create.at("/request/config/envs/0/value").asText())
        .isEqualTo(java.util.Base64.getEncoder().encodeToString(SecretRedactor.REDACTED.getBytes()));
    // what was forwarded kept its secrets
    assertThat(((PullImageRequest) received.get(0)).getAuth().getPassword()).isEqualTo("hunter2");
    assertThat(((CreateContainerRequest) received.get(1)).getConfig().getEnvs(0).getValue().toStringUtf8())
        .isEqualTo("s3cret");
  }

  @Test
  void shortYamlDumpHasNoMessagesButTheStatusOfFailedCalls() throws IOException {
    DumpInterceptor dump = serve("short:.*", DumpFormat.YAML, out, AsyncDumpWriter.QUEUE_CAPACITY);

    RuntimeServiceGrpc.newBlockingStub(channel).version(VersionRequest.getDefaultInstance());
    assertThatThrownBy(() -> RuntimeServiceGrpc.newBlockingStub(channel)
        .stopContainer(StopContainerRequest.newBuilder().setContainerId("gone").build()))
        .isInstanceOf(StatusRuntimeException.class);
    dump.close();

    List<JsonNode> records = yamlDocuments();
    assertThat(records).extracting(r -> r.get("method").asText()).containsExactly("Version", "StopContainer");
    assertThat(records).allSatisfy(r -> assertThat(r.has("request")).isFalse());
    JsonNode failed = records.get(1);
    assertThat(failed.get("code").asText()).isEqualTo("NOT_FOUND");
    assertThat(failed.get("error").asText()).isEqualTo("container gone");
    assertThat(failed.at("/ids/container_id").asText()).isEqualTo("gone");
  }

  @Test
  void methodsTheRulesTurnOffWriteNothing() {
    DumpInterceptor dump = serve("full:.*,off:Version", DumpFormat.JSON, out, AsyncDumpWriter.QUEUE_CAPACITY);

    RuntimeServiceGrpc.newBlockingStub(channel).version(VersionRequest.getDefaultInstance());
    dump.close();

    assertThat(out.toString()).isEmpty();
    assertThat(received).hasSize(1);
  }

  @Test
  void callsThatDoNotFitTheQueueAreCountedAndReported() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    BlockingWriter slowDisk = new BlockingWriter(release);
    DumpInterceptor dump = serve("short:.*", DumpFormat.JSON, slowDisk, 1);

    RuntimeServiceGrpc.RuntimeServiceBlockingStub stub = RuntimeServiceGrpc.newBlockingStub(channel);
    // call 1 is taken by the writer, which then blocks on the "disk"; call 2 fills the one-slot queue
    stub.version(VersionRequest.getDefaultInstance());
    slowDisk.writing.await();
    for (int i = 0; i < 4; i++) {
      stub.version(VersionRequest.getDefaultInstance());
    }
    // calls 3..5 had no room
    assertThat(dump.dropped()).isEqualTo(3);
    release.countDown();
    dump.close();

    List<JsonNode> records = new ArrayList<>();
    for (String line : slowDisk.text.toString().split("\n")) {
      records.add(new ObjectMapper().readTree(line));
    }
    assertThat(records).filteredOn(r -> r.has("method")).hasSize(2);
    assertThat(records).filteredOn(r -> r.has("dropped")).singleElement()
        .extracting(r -> r.get("dropped").asLong()).isEqualTo(3L);
  }

  private DumpInterceptor serve(String rules, DumpFormat format, Writer writer, int capacity) {
    DumpEncoder encoder = new DumpEncoder(format, new SecretRedactor(Pattern.compile(DumpSettings.DEFAULT_REDACT_ENV)));
    DumpInterceptor dump = new DumpInterceptor(DumpRules.parse(rules),
        new AsyncDumpWriter(encoder, writer, false, capacity, CLOCK), CLOCK);
    String name = InProcessServerBuilder.generateName();
    try {
      server = InProcessServerBuilder.forName(name).directExecutor()
          .addService(ServerInterceptors.intercept(new RecordingImages(), dump))
          .addService(ServerInterceptors.intercept(new RecordingRuntime(), dump))
          .build().start();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    return dump;
  }

  private List<JsonNode> jsonLines() throws IOException {
    List<JsonNode> records = new ArrayList<>();
    for (String line : out.toString().split("\n")) {
      records.add(new ObjectMapper().readTree(line));
    }
    return records;
  }

  private List<JsonNode> yamlDocuments() throws IOException {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    try (var documents = yaml.readerFor(JsonNode.class).<JsonNode>readValues(out.toString())) {
      return documents.readAll();
    }
  }

  private final class RecordingImages extends ImageServiceGrpc.ImageServiceImplBase {
    @Override
    public void pullImage(PullImageRequest request, StreamObserver<PullImageResponse> response) {
      received.add(request);
      response.onNext(PullImageResponse.newBuilder().setImageRef("sha256:app").build());
      response.onCompleted();
    }
  }

  private final class RecordingRuntime extends RuntimeServiceGrpc.RuntimeServiceImplBase {
    @Override
    public void version(VersionRequest request, StreamObserver<VersionResponse> response) {
      received.add(request);
      response.onNext(VersionResponse.newBuilder().setRuntimeName("test").build());
      response.onCompleted();
    }

    @Override
    public void createContainer(CreateContainerRequest request, StreamObserver<CreateContainerResponse> response) {
      received.add(request);
      response.onNext(CreateContainerResponse.newBuilder().setContainerId("ctr-1").build());
      response.onCompleted();
    }

    @Override
    public void stopContainer(StopContainerRequest request, StreamObserver<StopContainerResponse> response) {
      received.add(request);
      response.onError(Status.NOT_FOUND.withDescription("container " + request.getContainerId()).asRuntimeException());
    }
  }

  /** A disk that takes its time: the first write waits until released. */
  private static final class BlockingWriter extends Writer {
    final StringBuilder text = new StringBuilder();
    final CountDownLatch writing = new CountDownLatch(1);
    private final CountDownLatch release;

    BlockingWriter(CountDownLatch release) {
      this.release = release;
    }

    @Override
    public void write(char[] chars, int off, int len) {
      writing.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      synchronized (text) {
        text.append(chars, off, len);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }
}
