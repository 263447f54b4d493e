package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ListPodSandboxStatsRequest;
import io.crigate.api.cri.v1.PodSandboxStats;
import io.crigate.api.cri.v1.PodSandboxStatsFilter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "statsp", description = "Resource usage of pods (ListPodSandboxStats).")
final class StatspCommand extends CriAction {

  @Parameters(arity = "0..1", paramLabel = "POD-ID", description = "Only this pod (id or unique prefix).")
  String pod;

  @Option(names = "--no-trunc", description = "Show full ids.")
  boolean noTrunc;

  @Override
  int run(CriSession cri) {
    PodSandboxStatsFilter.Builder filter = PodSandboxStatsFilter.newBuilder();
    if (pod != null) {
      filter.setId(cri.podId(pod));
    }
    List<PodSandboxStats> stats = cri.runtime()
        .listPodSandboxStats(ListPodSandboxStatsRequest.newBuilder().setFilter(filter).build()).getStatsList();
    Table table = new Table("POD", "NAME", "CPU NANOCORES", "MEM");
    for (PodSandboxStats s : stats) {
      table.row(HumanUnits.id(s.getAttributes().getId(), noTrunc), s.getAttributes().getMetadata().getName(),
          Long.toString(s.getLinux().getCpu().getUsageNanoCores().getValue()),
          HumanUnits.size(s.getLinux().getMemory().getWorkingSetBytes().getValue()));
    }
    table.print(out());
    return 0;
  }
}
