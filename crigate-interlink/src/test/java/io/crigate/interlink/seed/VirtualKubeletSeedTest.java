package io.crigate.interlink.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.interlink.wire.PingResponse;
import io.crigate.spi.CrigateException;
import io.crigate.testsupport.InterLinkSeedExamples;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What interLink's vk took from its environment and its KNoC provider configuration (seed 002). */
class VirtualKubeletSeedTest {

  @TempDir Path tmp;

  @Test
  void knocsProviderConfigGivesTheNodesCapacity() throws IOException {
    Path file = Files.writeString(tmp.resolve("knoc-cfg.json"), InterLinkSeedExamples.KNOC_CONFIG);

    assertThat(KnocProviderConfig.capacity(file, "vk-knoc-debug")).containsExactly(
        Map.entry("cpu", "2"), Map.entry("memory", "32Gi"), Map.entry("pods", "128"));
    assertThatThrownBy(() -> KnocProviderConfig.capacity(file, "other-node"))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("has no entry for node other-node (it has [vk-knoc-debug])");
    Path odd = Files.writeString(tmp.resolve("odd.json"), "{\"n\": {\"cpu\": \"2\", \"gpus\": \"1\"}}");
    assertThatThrownBy(() -> KnocProviderConfig.capacity(odd, "n")).hasMessageContaining("unknown key 'gpus'");
  }

  @Test
  void theDeploymentsVariablesAreRead() {
    VirtualKubeletEnvironment env = VirtualKubeletEnvironment.of(Map.of("KUBELET_PORT", "10250", "VKUBELET_POD_IP",
        "10.1.2.3", "APISERVER_CERT_LOCATION", "/c.pem", "APISERVER_KEY_LOCATION", "/k.pem", "VK_CONFIG_PATH", "/cfg.json", "CUSTOMKUBECONF", "/kube.yaml"));

    assertThat(env).isEqualTo(new VirtualKubeletEnvironment(Optional.of("10250"), Optional.of("10.1.2.3"),
        Optional.of("/c.pem"), Optional.of("/k.pem"), Optional.of("/cfg.json"), Optional.of("/kube.yaml")));
    assertThat(VirtualKubeletEnvironment.of(Map.of("KUBELET_PORT", "")).kubeletPort()).isEmpty();
  }

  @Test
  void theKnocProviderTaintsTheNodeAsVirtualKubeletDidAndOtherProvidersAreRefused() {
    assertThat(VirtualKubeletEnvironment.providerTaint("knoc"))
        .isEqualTo(new PingResponse.Taint("virtual-kubelet.io/provider", "knoc", "NoSchedule"));
    assertThatThrownBy(() -> VirtualKubeletEnvironment.providerTaint("azure"))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("--provider azure is refused");
  }
}
