package io.inferlens.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpResponseWriter;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Querier;
import io.inferlens.storage.StorageException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code /api/v1/export} response, written while the store is read: VictoriaMetrics's export
 * format, one JSON line {@code {"metric":{…},"values":[…],"timestamps":[…]}} per series
 * (timestamps in milliseconds; non-finite values as the strings {@code "NaN"}, {@code "+Inf"},
 * {@code "-Inf"}), series of each {@code match[]} in label-set order, a series matched by several
 * {@code match[]} once, under the first.
 *
 * <p>Memory: the store hands series over in batches ({@link Querier#selectEach}); lines go out in
 * chunks of {@value #CHUNK_BYTES} bytes, at most {@value #MAX_OUTSTANDING_CHUNKS} of them written
 * and not yet taken by the connection, so a slow client slows the read instead of filling the
 * heap. Duplicates across {@code match[]} are found by testing a series against the earlier
 * selectors' matchers, which needs no memory per series.
 *
 * <p>Response: the first {@value #HOLD_BYTES} bytes are held before the status is sent, so an
 * export that fits is one ordinary response (200 with its length), and one that fails early still
 * gets a proper error status: 422 {@code execution} when it would pass {@code maxSamples} (as
 * PromQL's {@code --query.max-samples}), 503 {@code unavailable} when the store fails. After the
 * status went out a failure can only abort the body: the connection is closed before the
 * chunked body's end, so the client sees an incomplete transfer, and one warning (limit) or error
 * (store) is logged naming the selectors. A client that disconnects, or takes nothing for
 * {@value #STALL_TIMEOUT_MS} ms, stops the read; that is logged on one info line.
 *
 * <p>Not thread-safe: {@link #run} runs once, on a blocking thread.
 */
final class ExportStream {

  /** Bytes of one body chunk: large enough that per-chunk costs vanish, small to hold. */
  static final int CHUNK_BYTES = 64 << 10;
  /** Bytes held before the status is sent, so early failures can still answer an error. */
  static final int HOLD_BYTES = 1 << 20;
  /** Chunks written but not yet taken by the connection before the read waits. */
  static final int MAX_OUTSTANDING_CHUNKS = 4;
  /**
   * How long the read waits for the client to take a chunk, milliseconds; the export has no
   * request timeout (a large one legitimately takes minutes), so this frees a client that stalls.
   */
  static final long STALL_TIMEOUT_MS = 60_000;

  private static final Logger log = LoggerFactory.getLogger(ExportStream.class);
  private static final JsonFactory JSON = new JsonFactory()
      .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

  private final HttpResponseWriter writer;
  private final List<String> selectors;
  private final List<List<Matcher>> matchers;
  private final long maxSamples;
  private final Chunks out = new Chunks();
  private final ArrayDeque<CompletableFuture<Void>> outstanding = new ArrayDeque<>();
  private List<HttpData> held = new ArrayList<>();
  private long heldBytes;
  private boolean headersSent;
  private long series;
  private long samples;

  /**
   * @param writer the response to write; this stream writes its headers and closes it
   * @param selectors the {@code match[]} texts, for messages
   * @param matchers the parsed selectors, parallel to {@code selectors}
   * @param maxSamples the most samples one export may write ({@code --max-export-samples}), &ge; 1
   */
  ExportStream(HttpResponseWriter writer, List<String> selectors, List<List<Matcher>> matchers,
      long maxSamples) {
    this.writer = writer;
    this.selectors = selectors;
    this.matchers = matchers;
    this.maxSamples = maxSamples;
  }

  /**
   * Reads the selected series from {@code store} and writes the response; never throws, every
   * outcome ends the response (see the class comment).
   *
   * @param store the store to read
   * @param startMs first timestamp, milliseconds, inclusive
   * @param endMs last timestamp, milliseconds, inclusive
   */
  void run(Querier store, long startMs, long endMs) {
    try {
      for (int k = 0; k < matchers.size(); k++) {
        int selector = k;
        store.selectEach(matchers.get(k), startMs, endMs,
            (labels, ts, bits, n) -> visit(selector, labels, ts, bits, n));
      }
      out.emit();
      if (!headersSent) {
        writer.write(ResponseHeaders.builder(HttpStatus.OK).contentType(MediaType.JSON_LINES)
            .contentLength(heldBytes).build());
        held.forEach(writer::write);
      }
      writer.close();
    } catch (LimitExceeded e) {
      String message = "export of match[]=" + selectors + " exceeds --max-export-samples="
          + maxSamples + ": " + series + " series with " + samples + " samples written, the next "
          + "series has " + e.next + " more; narrow the matchers or the time range, or split the "
          + "export";
      if (!headersSent) {
        fail(ErrorMapping.Kind.EXECUTION, message);
      } else {
        log.warn("{}; response cut off after {} bytes", message, out.sent);
        // An abort closes the HTTP/1.1 connection before the body's end, and Armeria logs
        // nothing more for it (it would warn with a stack trace for any other exception).
        writer.abort();
      }
    } catch (ClientGone e) {
      log.info("export of match[]={} stopped after {} series, {} samples: {}", selectors, series,
          samples, e.getMessage());
      writer.abort();
    } catch (IllegalArgumentException e) {
      // Selectors the parser let through but the store refuses (every matcher matches "").
      if (!headersSent) {
        fail(ErrorMapping.Kind.BAD_DATA, e.getMessage());
      } else {
        writer.abort();
      }
    } catch (StorageException | RuntimeException e) {
      log.error("export of match[]={} failed after {} series, {} samples", selectors, series,
          samples, e);
      if (!headersSent) {
        fail(e instanceof StorageException ? ErrorMapping.Kind.UNAVAILABLE
            : ErrorMapping.Kind.INTERNAL, String.valueOf(e.getMessage()));
      } else {
        writer.abort();
      }
    }
  }

  private void visit(int selector, LabelSet labels, long[] ts, long[] bits, int n) {
    for (int j = 0; j < selector; j++) {
      if (matchesAll(matchers.get(j), labels)) {
        return; // written under the earlier selector
      }
    }
    if (samples + n > maxSamples) {
      throw new LimitExceeded(n);
    }
    try {
      writeLine(labels, ts, bits, n);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // Chunks throws no IOException
    }
    series++;
    samples += n;
  }

  private static boolean matchesAll(List<Matcher> ms, LabelSet labels) {
    for (Matcher m : ms) {
      if (!m.matches(labels.get(m.name()))) {
        return false;
      }
    }
    return true;
  }

  /** One line, byte for byte as the export wrote it when it built the whole body at once. */
  private void writeLine(LabelSet labels, long[] ts, long[] bits, int n) throws IOException {
    // A generator per line: one generator for the stream would separate lines with spaces.
    JsonGenerator g = JSON.createGenerator(out);
    g.writeStartObject();
    g.writeObjectFieldStart("metric");
    for (int i = 0; i < labels.size(); i++) {
      g.writeStringField(labels.name(i), labels.value(i));
    }
    g.writeEndObject();
    g.writeArrayFieldStart("values");
    for (int i = 0; i < n; i++) {
      double v = Double.longBitsToDouble(bits[i]);
      if (Double.isNaN(v)) {
        g.writeString("NaN");
      } else if (Double.isInfinite(v)) {
        g.writeString(v > 0 ? "+Inf" : "-Inf");
      } else {
        g.writeNumber(v);
      }
    }
    g.writeEndArray();
    g.writeArrayFieldStart("timestamps");
    for (int i = 0; i < n; i++) {
      g.writeNumber(ts[i]);
    }
    g.writeEndArray();
    g.writeEndObject();
    g.close();
    out.write('\n');
  }

  /** Answers an error envelope; only before the status was sent. */
  private void fail(ErrorMapping.Kind kind, String message) {
    byte[] body = JsonEndpoints.errorBody(kind, message);
    writer.write(ResponseHeaders.builder(ErrorMapping.status(kind))
        .contentType(MediaType.JSON_UTF_8).contentLength(body.length).build());
    writer.write(HttpData.wrap(body));
    writer.close();
  }

  /** Hands a full chunk on: held until {@value #HOLD_BYTES} bytes, then to the connection. */
  private void chunk(byte[] bytes, int length) {
    HttpData data = HttpData.wrap(bytes, 0, length);
    if (!writer.isOpen()) {
      throw new ClientGone("the client is gone");
    }
    if (!headersSent) {
      held.add(data);
      heldBytes += length;
      if (heldBytes <= HOLD_BYTES) {
        return;
      }
      headersSent = true;
      if (!writer.tryWrite(ResponseHeaders.builder(HttpStatus.OK)
          .contentType(MediaType.JSON_LINES).build())) {
        throw new ClientGone("the client is gone");
      }
      List<HttpData> first = held;
      held = null;
      for (HttpData d : first) {
        send(d);
      }
      return;
    }
    send(data);
  }

  private void send(HttpData data) {
    if (!writer.tryWrite(data)) {
      throw new ClientGone("the client is gone");
    }
    out.sent += data.length();
    outstanding.add(writer.whenConsumed());
    while (outstanding.size() > MAX_OUTSTANDING_CHUNKS) {
      CompletableFuture<Void> consumed = outstanding.poll();
      try {
        // Also wakes when the response is aborted (client gone), which may leave it pending.
        CompletableFuture.anyOf(consumed, writer.whenComplete())
            .get(STALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        throw new ClientGone("the client took nothing for " + STALL_TIMEOUT_MS + " ms");
      } catch (ExecutionException e) {
        throw new ClientGone("the client is gone");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ClientGone("interrupted");
      }
      if (!consumed.isDone()) {
        throw new ClientGone("the client is gone");
      }
    }
  }

  /** The body as an output stream cut into chunks of {@value #CHUNK_BYTES} bytes. */
  private final class Chunks extends OutputStream {
    private byte[] buf = new byte[CHUNK_BYTES];
    private int pos;
    /** Bytes sent to the connection so far, for the log. */
    long sent;

    @Override
    public void write(int b) {
      if (pos == buf.length) {
        emit();
      }
      buf[pos++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      while (len > 0) {
        if (pos == buf.length) {
          emit();
        }
        int n = Math.min(len, buf.length - pos);
        System.arraycopy(b, off, buf, pos, n);
        pos += n;
        off += n;
        len -= n;
      }
    }

    /** Hands on what is buffered; the connection owns the array then, so a new one follows. */
    void emit() {
      if (pos == 0) {
        return;
      }
      byte[] full = buf;
      int length = pos;
      buf = new byte[CHUNK_BYTES];
      pos = 0;
      chunk(full, length);
    }

    @Override
    public void flush() {
      // Jackson flushes at every line's end; chunks go out only when full.
    }
  }

  /** Thrown by the visitor to stop the read: the next series would pass the limit. */
  private static final class LimitExceeded extends RuntimeException {
    final int next;

    LimitExceeded(int next) {
      super(null, null, false, false);
      this.next = next;
    }
  }

  /** Thrown by the visitor to stop the read: nobody takes the response any more. */
  private static final class ClientGone extends RuntimeException {
    ClientGone(String why) {
      super(why, null, false, false);
    }
  }
}
