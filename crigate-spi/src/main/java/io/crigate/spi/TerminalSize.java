package io.crigate.spi;

/** A terminal's size in character cells, as a client's resize message gives it. */
public record TerminalSize(int width, int height) {

  public TerminalSize {
    if (width < 0 || height < 0) {
      throw new CrigateException.InvalidArgument("terminal size %dx%d is negative".formatted(width, height));
    }
  }
}
