package io.crigate.cli.ctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.core.util.Separators.Spacing;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** The {@code -o} choices. Tables are rendered by each list command; documents here. */
enum OutputFormat {
  JSON(JsonMapper.builder().defaultPrettyPrinter(crictlStyle()).enable(SerializationFeature.INDENT_OUTPUT).build()),
  YAML(
      YAMLMapper.builder()
          .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
          // int64 fields print as JSON strings; keep them strings when the YAML is read back
          .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
          .build()),
  TABLE(null);

  private final ObjectMapper mapper;

  OutputFormat(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** Two-space indents and {@code "key": value}, as crictl and jq print JSON. */
  private static DefaultPrettyPrinter crictlStyle() {
    return new DefaultPrettyPrinter()
        .withSeparators(Separators.createDefaultInstance().withObjectFieldValueSpacing(Spacing.AFTER))
        .withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE);
  }

  /** Prints {@code document} as JSON or YAML; a table request falls back to JSON. */
  void write(JsonNode document, PrintWriter out) {
    ObjectMapper writer = mapper == null ? JSON.mapper : mapper;
    try {
      String text = writer.writeValueAsString(document);
      out.print(text.endsWith("\n") ? text : text + "\n");
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Accepts {@code json}, {@code yaml} and {@code table} in any case, as crictl does. */
  static final class Converter implements ITypeConverter<OutputFormat> {
    @Override
    public OutputFormat convert(String value) {
      try {
        return valueOf(value.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("'%s' is not one of json, yaml, table".formatted(value));
      }
    }
  }
}
