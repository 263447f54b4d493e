package io.crigate.interlink.wire;

import com.fasterxml.jackson.annotation.JsonAlias;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import java.util.List;

/**
 * What the virtual kubelet sends to the interLink API's {@code /create}: the pod and every ConfigMap,
 * Secret and projected volume it references (note the extra "s": {@code projectedvolumesmaps}).
 */
public record PodCreateRequests(
    Pod pod,
    List<ConfigMap> configmaps,
    List<Secret> secrets,
    @JsonAlias("projectedVolumesMaps") List<ConfigMap> projectedvolumesmaps,
    String jobscriptURL) {}
