/*
 * Amazon's event-ruler (1.8.1) as the reference implementation of the filter pattern language, for the
 * differential test of src/filter (test/integration/filter/event-ruler-differential.test.ts, driven by
 * test/support/event-ruler-peer.ts).
 *
 * Reads cases from stdin, one per line: one or more patterns and then the event, each as JSON text,
 * separated by tab characters (JSON text never holds a raw tab). Adds every pattern of the line as a
 * rule of a fresh Machine and matches the event with rulesForJSONEvent (array-consistent matching).
 * Prints one line per case, in order: "true" (some pattern matched), "false", or "error <message>"
 * when event-ruler refused a pattern or the event.
 */
package rocketmq.lambda.interop;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import software.amazon.event.ruler.Machine;

public final class EventRulerMatch {
  private EventRulerMatch() {}

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isEmpty()) continue;
      out.write(answer(line.split("\t", -1)));
      out.newLine();
    }
    out.flush();
  }

  private static String answer(String[] parts) {
    if (parts.length < 2) return "error a case needs at least one pattern and an event";
    try {
      Machine machine = new Machine();
      for (int i = 0; i < parts.length - 1; i++) machine.addRule("pattern-" + i, parts[i]);
      return machine.rulesForJSONEvent(parts[parts.length - 1]).isEmpty() ? "false" : "true";
    } catch (Exception e) {
      return "error " + String.valueOf(e.getMessage()).replace('\n', ' ').replace('\r', ' ');
    }
  }
}
