package io.crigate.policy.seed;

import java.util.ArrayList;
import java.util.List;

/** Collects what a translation did with each setting, in the order they were read. */
public final class SeedFindings {

  private final List<SeedFinding> findings = new ArrayList<>();

  public void mapped(String setting, String equivalent) {
    findings.add(new SeedFinding(setting, SeedFinding.Outcome.MAPPED, equivalent));
  }

  public void ignored(String setting, String why) {
    findings.add(new SeedFinding(setting, SeedFinding.Outcome.IGNORED, why));
  }

  public void refused(String setting, String why) {
    findings.add(new SeedFinding(setting, SeedFinding.Outcome.REFUSED, why));
  }

  /** Takes over a finding made elsewhere, e.g. by a section translated on its own. */
  public void add(SeedFinding finding) {
    findings.add(finding);
  }

  public List<SeedFinding> all() {
    return List.copyOf(findings);
  }

  public List<SeedFinding> with(SeedFinding.Outcome outcome) {
    return findings.stream().filter(f -> f.outcome() == outcome).toList();
  }
}
