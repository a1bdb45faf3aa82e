package io.inferlens.analysis.incident;

/**
 * A note on an incident: what was changed and what came of it, e.g. "max-num-seqs 32 → 24,
 * TTFT back under 1 s".
 *
 * @param atMs when it was written, milliseconds since the epoch
 * @param author who wrote it (free text, may be empty)
 * @param text the note, 1 to {@value #MAX_TEXT_CHARS} characters
 */
public record IncidentNote(long atMs, String author, String text) {

  /** Longest note text, in characters. */
  public static final int MAX_TEXT_CHARS = 4096;
  /** Longest author, in characters. */
  public static final int MAX_AUTHOR_CHARS = 256;
  /** Most notes one incident keeps. */
  public static final int MAX_NOTES = 100;

  /**
   * @throws IllegalArgumentException naming the field and its limit when the text is empty or
   *     too long, or the author too long
   */
  public IncidentNote {
    author = author == null ? "" : author;
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("note field 'text' is empty");
    }
    if (text.length() > MAX_TEXT_CHARS) {
      throw new IllegalArgumentException("note field 'text' has " + text.length()
          + " characters, over the limit of " + MAX_TEXT_CHARS);
    }
    if (author.length() > MAX_AUTHOR_CHARS) {
      throw new IllegalArgumentException("note field 'author' has " + author.length()
          + " characters, over the limit of " + MAX_AUTHOR_CHARS);
    }
  }
}
