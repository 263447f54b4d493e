package io.crigate.streaming;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;

/**
 * How a session ended: a command's exit code, or a failure to run it.
 *
 * @param exitCode the command's exit code; meaningless when {@code failure} is set
 * @param failure why the session could not run, or null
 */
record ExitStatus(int exitCode, String failure) {

  private static final ObjectMapper JSON = new ObjectMapper();

  static ExitStatus exited(int exitCode) {
    return new ExitStatus(exitCode, null);
  }

  static ExitStatus failed(String message) {
    return new ExitStatus(-1, message);
  }

  /**
   * The Kubernetes {@code metav1.Status} that ends a v4/v5 session on the error channel. client-go
   * turns reason NonZeroExitCode with an ExitCode cause into the exit code {@code kubectl exec}
   * returns; any other failure is shown as its message.
   */
  byte[] json() {
    ObjectNode status = JSON.createObjectNode();
    status.putObject("metadata");
    if (failure != null) {
      status.put("status", "Failure");
      status.put("message", failure);
      status.put("reason", "InternalError");
    } else if (exitCode != 0) {
      status.put("status", "Failure");
      status.put("message", "command terminated with non-zero exit code: exit status " + exitCode);
      status.put("reason", "NonZeroExitCode");
      ObjectNode cause = status.putObject("details").putArray("causes").addObject();
      cause.put("reason", "ExitCode");
      cause.put("message", Integer.toString(exitCode));
    } else {
      status.put("status", "Success");
    }
    try {
      return JSON.writeValueAsBytes(status);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a status of strings cannot fail to serialize", e);
    }
  }

  /** The older protocols' error channel: only a failure's text, nothing on success. */
  byte[] text() {
    String text = failure != null ? failure
        : exitCode != 0 ? "command terminated with non-zero exit code: exit status " + exitCode : "";
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return failure != null ? "failed: " + failure : "exit " + exitCode;
  }
}
