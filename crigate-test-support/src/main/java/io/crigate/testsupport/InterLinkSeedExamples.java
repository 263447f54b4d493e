package io.crigate.testsupport;

/**
 * The examples of interLink's first releases (seed 002, Cloud-PG/interLink) as its repository holds
 * them, so tests run them exactly as written. Test data only.
 */
public final class InterLinkSeedExamples {

  /** kustomizations/InterLinkConfig.yaml. */
  public static final String INTERLINK_CONFIG = """
      VKTokenFile: "/opt/interlink/token"
      InterlinkURL: "http://localhost"
      SidecarURL: "http://localhost"
      InterlinkPort: "3000"
      SidecarService: "slurm" #docker, slurm
      SbatchPath: "/usr/bin/sbatch"
      ScancelPath: "/usr/bin/scancel"
      CommandPrefix: ""
      Tsocks: false
      TsocksPath: "$WORK/tsocks-1.8beta5+ds1/libtsocks.so"
      TsocksLoginNode: "login01\"""";

  /** scripts/cfg.json: the KNoC provider configuration for the README's node, vk-knoc-debug. */
  public static final String KNOC_CONFIG = """
      {
          "vk-knoc-debug": {
            "cpu": "2",
            "memory": "32Gi",
            "pods": "128"
          }
        }""";

  /** examples/interlink_mock/payloads/busyecho_k8s.yaml (with its trailing space after OnFailure). */
  public static final String BUSYECHO = """
      apiVersion: v1
      kind: Pod
      metadata:
        name: testvk
        annotations:
          slurm-job.knoc.io/flags: "-A INF23_lhc_0  --job-name=TEST_KNOC -p m100_usr_prod -t 1440 --gres=\\"gpu:0\\" --cpus-per-task=1"
      spec:
        restartPolicy: OnFailure\s
        containers:
        - image: /cvmfs/unpacked.cern.ch/registry.hub.docker.com/cmssw/el8:ppc64le
          command:
            - /m100/home/userexternal/gsurace0/script.sh
          imagePullPolicy: Always
          name: busyecho
        dnsPolicy: ClusterFirst
        nodeSelector:
          kubernetes.io/role: agent
          beta.kubernetes.io/os: linux
          type: virtual-kubelet
        tolerations:
        - key: virtual-kubelet.io/provider
          operator: Exists
      """;

  /** The annotation's value in {@link #BUSYECHO}, as the pod carries it. */
  public static final String BUSYECHO_FLAGS =
      "-A INF23_lhc_0  --job-name=TEST_KNOC -p m100_usr_prod -t 1440 --gres=\"gpu:0\" --cpus-per-task=1";

  private InterLinkSeedExamples() {}
}
