package io.crigate.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * A scatter plot as PNG: MB pulled against the CV of requested CPU per node, one point per scorer,
 * node count and seed (color: scorer; the number by the point: nodes/seed). No plotting package is
 * installed on the bench machine; the JDK's imaging is enough for this.
 */
final class ChainPlot {

  private static final int WIDTH = 900;
  private static final int HEIGHT = 600;
  private static final int MARGIN = 80;
  private static final Map<String, Color> COLORS = Map.of(
      "resources-only", new Color(0x88, 0x88, 0x88),
      "image-locality", new Color(0x1f, 0x77, 0xb4),
      "layer-locality", new Color(0xd6, 0x27, 0x28));

  private ChainPlot() {}

  static void write(List<ChainReport.Run> runs, Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, WIDTH, HEIGHT);
    double minX = runs.stream().mapToDouble(ChainReport.Run::cvCpu).min().orElse(0) - 0.02;
    double maxX = runs.stream().mapToDouble(ChainReport.Run::cvCpu).max().orElse(1) + 0.02;
    double maxY = runs.stream().mapToDouble(ChainReport.Run::mb).max().orElse(1) * 1.1;
    g.setColor(Color.BLACK);
    g.setStroke(new BasicStroke(1.5f));
    g.drawLine(MARGIN, HEIGHT - MARGIN, WIDTH - MARGIN / 2, HEIGHT - MARGIN);
    g.drawLine(MARGIN, HEIGHT - MARGIN, MARGIN, MARGIN / 2);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    for (int tick = 0; tick <= 5; tick++) {
      double x = minX + (maxX - minX) * tick / 5;
      double y = maxY * tick / 5;
      g.drawString("%.3f".formatted(x), px(x, minX, maxX) - 15, HEIGHT - MARGIN + 20);
      g.drawString("%.0f".formatted(y), 10, py(y, maxY) + 5);
    }
    g.drawString("CV of requested CPU per node (lower: better balance)", WIDTH / 2 - 170, HEIGHT - 25);
    g.drawString("MB pulled (registry log)", 10, MARGIN / 2 - 10);
    int legend = 0;
    for (Map.Entry<String, Color> scorer : COLORS.entrySet().stream().sorted(Map.Entry.comparingByKey()).toList()) {
      g.setColor(scorer.getValue());
      g.fillOval(WIDTH - 230, MARGIN / 2 + legend * 20, 10, 10);
      g.setColor(Color.BLACK);
      g.drawString(scorer.getKey(), WIDTH - 212, MARGIN / 2 + legend * 20 + 10);
      legend++;
    }
    if (runs.stream().anyMatch(run -> !COLORS.containsKey(run.scorer()))) {
      g.fillOval(WIDTH - 230, MARGIN / 2 + legend * 20, 10, 10);
      g.drawString("other runs (e.g. a baseline build)", WIDTH - 212, MARGIN / 2 + legend * 20 + 10);
    }
    for (ChainReport.Run run : runs) {
      int x = px(run.cvCpu(), minX, maxX);
      int y = py(run.mb(), maxY);
      g.setColor(COLORS.getOrDefault(run.scorer(), Color.BLACK));
      g.fillOval(x - 5, y - 5, 10, 10);
      g.drawString("%d/%d".formatted(run.nodes(), run.seed()), x + 7, y - 3);
    }
    g.dispose();
    ImageIO.write(image, "png", png.toFile());
  }

  private static int px(double x, double min, double max) {
    return MARGIN + (int) ((x - min) / (max - min) * (WIDTH - 1.5 * MARGIN));
  }

  private static int py(double y, double max) {
    return HEIGHT - MARGIN - (int) (y / max * (HEIGHT - 1.5 * MARGIN));
  }
}
