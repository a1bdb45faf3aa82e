package io.inferlens.storage;

/**
 * A failure of the store itself (RocksDB I/O error, closed store, corruption): transient or
 * internal, never caused by the content of a request. Callers answer it with 5xx so senders retry.
 */
public class StorageException extends Exception {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed, with the path or key involved
   * @param cause the underlying exception, may be null
   */
  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
