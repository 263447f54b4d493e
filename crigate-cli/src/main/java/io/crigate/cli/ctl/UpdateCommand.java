package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.LinuxContainerResources;
import io.crigate.api.cri.v1.UpdateContainerResourcesRequest;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "update", description = "Update the resources of running containers (UpdateContainerResources).")
final class UpdateCommand extends CriAction {

  @Parameters(arity = "1..*", paramLabel = "CONTAINER-ID", description = "Containers (ids or unique prefixes).")
  List<String> containers;

  @Option(names = "--cpu-period", description = "CPU CFS period in microseconds.")
  long cpuPeriod;

  @Option(names = "--cpu-quota", description = "CPU CFS quota in microseconds.")
  long cpuQuota;

  @Option(names = "--cpu-share", description = "CPU shares (relative weight).")
  long cpuShares;

  @Option(names = "--cpuset-cpus", description = "CPUs the containers may use, e.g. 0-3,5.")
  String cpusetCpus = "";

  @Option(names = "--cpuset-mems", description = "Memory nodes the containers may use.")
  String cpusetMems = "";

  @Option(names = {"-m", "--memory"}, description = "Memory limit in bytes.")
  long memory;

  @Override
  int run(CriSession cri) {
    LinuxContainerResources resources = LinuxContainerResources.newBuilder().setCpuPeriod(cpuPeriod)
        .setCpuQuota(cpuQuota).setCpuShares(cpuShares).setCpusetCpus(cpusetCpus).setCpusetMems(cpusetMems)
        .setMemoryLimitInBytes(memory).build();
    for (String container : containers) {
      String id = cri.containerId(container);
      cri.runtime().updateContainerResources(UpdateContainerResourcesRequest.newBuilder().setContainerId(id)
          .setLinux(resources).build());
      out().println(id);
    }
    return 0;
  }
}
