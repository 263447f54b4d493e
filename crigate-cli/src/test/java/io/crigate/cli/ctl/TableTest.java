package io.crigate.cli.ctl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.Image;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableTest {

  private static String render(Table table) {
    StringWriter text = new StringWriter();
    table.print(new PrintWriter(text));
    return text.toString();
  }

  @Test
  void shortColumnsAreTwentyWideAndLastColumnIsNotPadded() {
    String text = render(new Table("A", "B", "C").row("x", "y", "z"));

    // columns A and B: max(20, 1 + 3) = 20 characters each
    assertThat(text.lines().toList())
        .containsExactly(
            "A" + " ".repeat(19) + "B" + " ".repeat(19) + "C",
            "x" + " ".repeat(19) + "y" + " ".repeat(19) + "z");
  }

  @Test
  void wideCellsWidenTheirColumnByThreeSpaces() {
    String wide = "127.0.0.1:5000/crigate/demo";
    String text = render(new Table("IMAGE", "TAG").row(wide, "v1"));

    // the IMAGE column is 27 + 3 = 30 wide, so TAG starts at column 30 on every line
    assertThat(text.lines().toList())
        .containsExactly("IMAGE" + " ".repeat(25) + "TAG", wide + "   v1");
  }

  @Test
  void emptyLastCellLeavesNoTrailingSpaces() {
    String text = render(new Table("A", "B").row("x", ""));

    assertThat(text.lines().toList()).containsExactly("A" + " ".repeat(19) + "B", "x");
  }

  @Test
  void rowWithWrongCellCountIsRefused() {
    assertThatThrownBy(() -> new Table("A", "B").row("only one"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("row has 1 cells, table has 2 columns");
  }

  @Test
  void imagesTableHasOneRowPerTagAndSplitsAtTheTagColon() {
    Image image =
        Image.newBuilder()
            .setId("sha256:0dade2b88c0f404135de9c579243b3ffa07fdac770238b3fd341bae8fba99d71")
            .addRepoTags("127.0.0.1:5000/crigate/demo:v1")
            .addRepoTags("127.0.0.1:5000/crigate/demo:latest")
            .setSize(1_089_495)
            .build();
    Image untagged =
        Image.newBuilder()
            .setId("sha256:746489deac0970000000000000000000000000000000000000000000000000")
            .addRepoDigests("127.0.0.1:5000/crigate/pause@sha256:aaaa")
            .setSize(999)
            .build();

    List<List<String>> rows =
        render(ImagesCommand.table(List.of(image, untagged), false)).lines()
            .map(line -> List.of(line.split(" {3,}")))
            .toList();

    assertThat(rows)
        .containsExactly(
            List.of("IMAGE", "TAG", "IMAGE ID", "SIZE"),
            List.of("127.0.0.1:5000/crigate/demo", "v1", "0dade2b88c0f4", "1.09MB"),
            List.of("127.0.0.1:5000/crigate/demo", "latest", "0dade2b88c0f4", "1.09MB"),
            List.of("127.0.0.1:5000/crigate/pause", "<none>", "746489deac097", "999B"));
  }
}
