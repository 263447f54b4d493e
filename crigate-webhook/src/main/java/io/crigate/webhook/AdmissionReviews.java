package io.crigate.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.spi.CrigateException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AdmissionReview v1 in, AdmissionReview v1 out. A review that is not one is an
 * {@link CrigateException.InvalidArgument} (the server answers 400); a pod that cannot be read is
 * allowed unchanged with a warning, so the webhook never blocks pod creation.
 */
final class AdmissionReviews {

  static final String API_VERSION = "admission.k8s.io/v1";
  private static final Logger log = LoggerFactory.getLogger(AdmissionReviews.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private AdmissionReviews() {}

  static byte[] answer(byte[] body) {
    JsonNode review;
    try {
      review = JSON.readTree(body);
    } catch (java.io.IOException e) {
      throw new CrigateException.InvalidArgument("the body is not JSON: " + e.getMessage());
    }
    if (review == null || !review.isObject() || !API_VERSION.equals(review.path("apiVersion").asText())
        || !"AdmissionReview".equals(review.path("kind").asText())) {
      throw new CrigateException.InvalidArgument("expected an AdmissionReview of apiVersion " + API_VERSION);
    }
    JsonNode request = review.path("request");
    String uid = request.path("uid").asText("");
    if (uid.isEmpty()) {
      throw new CrigateException.InvalidArgument("request.uid is missing");
    }
    ObjectNode response = JSON.createObjectNode().put("uid", uid).put("allowed", true);
    try {
      byte[] patch = JSON.writeValueAsBytes(ResourcePatch.of(request.path("object")));
      response.put("patchType", "JSONPatch").put("patch", Base64.getEncoder().encodeToString(patch));
    } catch (IllegalArgumentException | JsonProcessingException e) {
      String warning = "crigate webhook: pod %s/%s left unchanged: %s".formatted(
          request.path("namespace").asText(""), request.path("name").asText(""), e.getMessage());
      log.warn(warning);
      response.putArray("warnings").add(warning);
    }
    ObjectNode out = JSON.createObjectNode().put("apiVersion", API_VERSION).put("kind", "AdmissionReview");
    out.set("response", response);
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }
}
