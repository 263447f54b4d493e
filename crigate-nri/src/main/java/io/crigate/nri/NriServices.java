package io.crigate.nri;

/** The ttrpc service names NRI v0.12.2 registers, and its version string. */
final class NriServices {

  static final String PLUGIN = "nri.pkg.api.v1alpha1.Plugin";
  static final String RUNTIME = "nri.pkg.api.v1alpha1.Runtime";
  /** Reported in RegisterPlugin and Configure; the API version these protos are written from. */
  static final String NRI_VERSION = "v0.12.2";

  private NriServices() {
  }
}
