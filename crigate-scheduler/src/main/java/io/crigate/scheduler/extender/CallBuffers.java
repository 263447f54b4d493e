package io.crigate.scheduler.extender;

import io.crigate.scheduler.NodeLoad;
import io.crigate.scheduler.LayerLocality;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * The working memory of one extender call, kept for the next: the request's bytes, the candidates'
 * names, their loads and missing bytes, the score's arrays and the answer's bytes. At 5,000
 * candidates these are ~0.9 MB a call, which reallocated every call made young collections
 * frequent enough to show in the latency's tail.
 * They come from a small pool rather than a thread local: a call runs on whichever event loop
 * read it, or on a new virtual thread when it waits on a registry.
 */
final class CallBuffers {

  /** kube-scheduler scores one pod at a time; a few more cover a filter beside a prioritize. */
  private static final int POOLED = 4;
  /** A buffer grown beyond this by an unusual request (a full NodeList, sent or echoed) is not kept. */
  private static final int LARGEST_KEPT_BUFFER = 4 << 20;

  /** Each request's candidate names, valid until the call's answer is sent. */
  final List<String> names = new ArrayList<>();
  /** Each candidate's {@link NodeTable} entry, in the order of {@link #names}. */
  final List<NodeTable.Entry> entries = new ArrayList<>();
  /** Names the request brought that {@link NodeTable} did not know yet. */
  final List<NodeTable.Entry> unseen = new ArrayList<>();
  final List<NodeLoad> loads = new ArrayList<>();
  final Body body = new Body();
  final LayerLocality.Scratch scores = new LayerLocality.Scratch();
  final Answer answer = new Answer();
  private long[] missing = new long[0];
  private int[] numbers = new int[0];

  /**
   * The request's bytes, read whole into this reused buffer before they are parsed (217 KB at 5,000
   * names: read into a new array each call, it was most of what a call allocated over HTTP).
   */
  static final class Body extends ByteArrayOutputStream {
    /** Replaces the contents with everything {@code in} has, to its end. */
    void readAll(InputStream in) throws IOException {
      reset();
      while (true) {
        if (count == buf.length) {
          buf = Arrays.copyOf(buf, Math.max(8192, 2 * buf.length));
        }
        int read = in.read(buf, count, buf.length - count);
        if (read < 0) {
          return;
        }
        count += read;
      }
    }

    /** The contents without a copy, valid until the next {@link #readAll}; {@link #size()} bytes. */
    byte[] bytes() {
      return buf;
    }
  }

  /** The answer's bytes, handed on without the copy {@link #toByteArray()} makes. */
  static final class Answer extends ByteArrayOutputStream {
    /**
     * Adds {@code bytes} at the end: the prioritize answer's ~10,000 pieces, where the inherited
     * {@link #write(byte[], int, int)} would take its lock for each. The buffer is the call's own.
     */
    void append(byte[] bytes) {
      if (count + bytes.length > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(2 * buf.length, count + bytes.length));
      }
      System.arraycopy(bytes, 0, buf, count, bytes.length);
      count += bytes.length;
    }

    void sendTo(ExtenderVerbs.AnswerSink sink) {
      sink.send(buf, 0, count);
    }

    int capacity() {
      return buf.length;
    }
  }

  /** An array of exactly {@code candidates} longs (the score takes its length as the count), reused while the count stays the same; the caller overwrites it. */
  long[] missing(int candidates) {
    if (missing.length != candidates) {
      missing = new long[candidates];
    }
    return missing;
  }

  /** An array of at least {@code candidates} ints, for their numbers in the layer index; the caller overwrites it. */
  int[] numbers(int candidates) {
    if (numbers.length < candidates) {
      numbers = new int[candidates];
    }
    return numbers;
  }

  private void clear() {
    names.clear();
    entries.clear();
    unseen.clear();
    loads.clear();
    body.reset();
    answer.reset();
  }

  private boolean keepable() {
    return body.bytes().length <= LARGEST_KEPT_BUFFER && answer.capacity() <= LARGEST_KEPT_BUFFER;
  }

  /** A few buffers for calls to take and give back; more calls at once than it holds get fresh ones. */
  static final class Pool {
    private final BlockingQueue<CallBuffers> free = new ArrayBlockingQueue<>(POOLED);

    CallBuffers take() {
      CallBuffers buffers = free.poll();
      return buffers != null ? buffers : new CallBuffers();
    }

    void give(CallBuffers buffers) {
      if (buffers.keepable()) {
        buffers.clear();
        free.offer(buffers);
      }
    }
  }
}
