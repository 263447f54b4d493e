package io.crigate.scheduler.extender;

import io.crigate.images.ImageLayers;
import io.crigate.spi.CrigateException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.function.Function;

/**
 * The extender's verbs from request bytes to answer bytes, without HTTP: what {@link ExtenderServer}
 * runs for each call, and what a benchmark calls in process to tell the verb's cost from the
 * transport's. Each call works in {@link CallBuffers} taken from a pool and hands its answer to a
 * sink before giving them back. Bad input throws {@link io.crigate.spi.CrigateException.InvalidArgument}.
 */
public final class ExtenderVerbs {

  /** Where an answer's bytes go, e.g. the HTTP response; they are valid only during the call. */
  public interface AnswerSink {
    void send(byte[] bytes, int offset, int length);
  }

  private final LayerExtender extender;
  private final ExtenderJson json;
  private final CallBuffers.Pool buffers = new CallBuffers.Pool();

  /**
   * @param loads each node's CPU load by name, e.g. {@link NodeLoads}, which a {@link NodeLoadInformer} keeps current
   * @param images looks an image reference up, e.g. in a {@code RegistryClient} (caches)
   */
  public ExtenderVerbs(LayerIndex inventories, NodeLoads loads, ImageLayerSource images) {
    this.extender = new LayerExtender(inventories, loads, images);
    this.json = new ExtenderJson(inventories.nodeTable());
  }

  /** Images from a lookup that never waits ({@link ImageLayerSource#inMemory}), or for callers that always may wait. */
  public ExtenderVerbs(LayerIndex inventories, NodeLoads loads, Function<String, ImageLayers> images) {
    this(inventories, loads, ImageLayerSource.inMemory(images));
  }

  /** {@code ExtenderArgs} JSON in, {@code HostPriorityList} JSON to {@code answer}, which must not keep the bytes. */
  public void prioritize(InputStream body, AnswerSink answer) {
    prioritize(body, answer, true);
  }

  /**
   * As {@link #prioritize(InputStream, AnswerSink)}; where {@code mayWait} is false, a pod with an
   * image whose layers only its registry can tell throws {@link LayerExtender.WouldWait} before
   * anything has changed or been answered.
   */
  void prioritize(InputStream body, AnswerSink answer, boolean mayWait) {
    CallBuffers call = buffers.take();
    try {
      json.priorities(extender.prioritize(json.parseArgs(read(body, call), call), call, mayWait), call.answer);
      call.answer.sendTo(answer);
    } finally {
      buffers.give(call);
    }
  }

  /** {@code ExtenderArgs} JSON in, {@code ExtenderFilterResult} JSON to {@code answer}, which must not keep the bytes. */
  public void filter(InputStream body, AnswerSink answer) {
    CallBuffers call = buffers.take();
    try {
      json.filterResult(extender.filter(json.parseArgs(read(body, call), call)), call.answer);
      call.answer.sendTo(answer);
    } finally {
      buffers.give(call);
    }
  }

  /**
   * The whole body into the call's buffer before the verb starts: a request over the HTTP server's
   * limit is then refused (413) by the server as it is read, never half parsed.
   */
  private static CallBuffers.Body read(InputStream body, CallBuffers call) {
    try {
      call.body.readAll(body);
      return call.body;
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("request body unreadable: " + e.getMessage());
    }
  }

  /** {@link #prioritize(InputStream, AnswerSink)} on a whole body, its answer copied out. */
  public byte[] prioritize(byte[] body) {
    byte[][] out = new byte[1][];
    prioritize(new ByteArrayInputStream(body), (bytes, offset, length) -> out[0] = Arrays.copyOfRange(bytes, offset, offset + length));
    return out[0];
  }
}
