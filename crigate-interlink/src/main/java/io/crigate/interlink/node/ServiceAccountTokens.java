package io.crigate.interlink.node;

import io.crigate.spi.CrigateException;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountTokenProjection;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * Issues the token of a projected {@code serviceAccountToken} source with the TokenRequest API
 * ({@code serviceaccounts/<name>/token}), bound to the pod, so the API server invalidates it when the
 * pod is deleted. The token itself never reaches a log: only {@link Issued#value()} holds it.
 */
final class ServiceAccountTokens {

  /** The kubelet's lifetime when a source names none. */
  static final long DEFAULT_SECONDS = 3600;
  /**
   * What interLink's virtual kubelet asks for (100 years, bound to the pod): a token that a plugin
   * cannot be sent again must outlive the pod.
   */
  static final long WITHOUT_REFRESH_SECONDS = 100L * 365 * 24 * 3600;

  private final KubernetesClient kube;
  private final Clock clock;

  ServiceAccountTokens(KubernetesClient kube, Clock clock) {
    this.kube = kube;
    this.clock = clock;
  }

  /**
   * A token for the pod's service account, with the source's audience and lifetime when it can be
   * refreshed, else with interLink's. An API server that cannot be reached is {@link
   * CrigateException.Unavailable} (retried); a refusal (no such account, no RBAC) is the message.
   */
  Issued issue(Pod pod, ServiceAccountTokenProjection source, boolean refreshable) {
    long seconds = !refreshable ? WITHOUT_REFRESH_SECONDS
        : source.getExpirationSeconds() == null ? DEFAULT_SECONDS : source.getExpirationSeconds();
    String account = pod.getSpec().getServiceAccountName() == null || pod.getSpec().getServiceAccountName().isBlank()
        ? "default" : pod.getSpec().getServiceAccountName();
    TokenRequest request = new TokenRequestBuilder().withNewSpec()
        .withAudiences(source.getAudience() == null || source.getAudience().isBlank() ? List.of() : List.of(source.getAudience()))
        .withExpirationSeconds(seconds)
        .withNewBoundObjectRef().withApiVersion("v1").withKind("Pod").withName(pod.getMetadata().getName())
        .withUid(pod.getMetadata().getUid()).endBoundObjectRef()
        .endSpec().build();
    Instant asked = clock.instant();
    TokenRequest answer;
    try {
      answer = kube.serviceAccounts().inNamespace(pod.getMetadata().getNamespace()).withName(account).tokenRequest(request);
    } catch (KubernetesClientException e) {
      String why = "service account %s/%s: token request failed (%d)".formatted(pod.getMetadata().getNamespace(), account, e.getCode());
      if (e.getCode() == 0 || e.getCode() >= 500) {
        throw new CrigateException.Unavailable(why, e);
      }
      throw new IllegalStateException(why + ": " + (e.getStatus() == null ? "" : e.getStatus().getMessage()));
    }
    if (answer == null || answer.getStatus() == null || answer.getStatus().getToken() == null
        || answer.getStatus().getToken().isEmpty()) {
      throw new IllegalStateException("service account %s/%s: the token request was answered without a token"
          .formatted(pod.getMetadata().getNamespace(), account));
    }
    Instant expires = answer.getStatus().getExpirationTimestamp() == null ? asked.plusSeconds(seconds)
        : OffsetDateTime.parse(answer.getStatus().getExpirationTimestamp()).toInstant();
    return new Issued(answer.getStatus().getToken(), asked, expires);
  }

  /** An issued token; {@link #toString()} leaves the value out, so no log line can carry it. */
  record Issued(String value, Instant issuedAt, Instant expiresAt) {

    /** When it is sent again: at 80% of its lifetime, as the kubelet does. */
    Instant refreshAt() {
      Duration lifetime = Duration.between(issuedAt, expiresAt);
      return issuedAt.plus(lifetime.multipliedBy(8).dividedBy(10));
    }

    @Override
    public String toString() {
      return "Issued[value=<redacted>, issuedAt=" + issuedAt + ", expiresAt=" + expiresAt + "]";
    }
  }
}
