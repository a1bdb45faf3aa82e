package io.inferlens.storage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * The incident journal's bytes: records the analysis writes (an incident opened, updated or
 * resolved, with its evidence, encoded by the analysis), keyed by the incident's start time and
 * id, and a few named state values (how far the evaluator has covered). Storage knows nothing of
 * what the records mean; it keeps them durable (each write goes through RocksDB's WAL, like
 * samples), lists them by start time, and drops them with the 1-hour rollups' retention, so a
 * diagnosis lives as long as the data that explains it.
 *
 * <p>Key layout in the {@code journal} column family (storage/FORMAT.md): {@code 01
 * be64(startMs ^ 2^63) utf8(id)} for records, so they sort by start time (negative times
 * included); {@code 02 utf8(name)} for state values.
 *
 * <p>Thread safe: each call is one RocksDB operation or iterator under the store's lifecycle read
 * lock.
 */
public final class JournalStore {

  private static final byte RECORD = 1;
  private static final byte STATE = 2;

  private final StoreCore core;

  JournalStore(StoreCore core) {
    this.core = core;
  }

  /** Called for each record of a scan. */
  @FunctionalInterface
  public interface Visitor {
    /**
     * @param startMs the record's start time, milliseconds
     * @param id the record's id
     * @param value its bytes
     * @return false to stop the scan
     */
    boolean visit(long startMs, String id, byte[] value);
  }

  static byte[] recordKey(long startMs, String id) {
    byte[] idBytes = id.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(9 + idBytes.length).put(RECORD).putLong(startMs ^ Long.MIN_VALUE)
        .put(idBytes).array();
  }

  private static byte[] stateKey(String name) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + n.length).put(STATE).put(n).array();
  }

  /**
   * Writes (or replaces) a record, durably before returning.
   *
   * @param startMs the incident's start, milliseconds
   * @param id its id, non-empty
   * @param value its encoded bytes
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public void put(long startMs, String id, byte[] value) throws StorageException {
    write(batch -> batch.put(core.rocks.journal, recordKey(startMs, id), value));
  }

  /**
   * Deletes a record (nothing happens if there is none).
   *
   * @param startMs the start it was written with, milliseconds
   * @param id its id
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public void delete(long startMs, String id) throws StorageException {
    write(batch -> batch.delete(core.rocks.journal, recordKey(startMs, id)));
  }

  /**
   * @param name a state name such as {@code coverage}
   * @param value its bytes
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public void putState(String name, byte[] value) throws StorageException {
    write(batch -> batch.put(core.rocks.journal, stateKey(name), value));
  }

  /**
   * @param name a state name
   * @return its bytes, or null when never written
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public byte[] state(String name) throws StorageException {
    core.locks.lifecycle.readLock().lock();
    try {
      core.ensureOpen();
      return core.rocks.db.get(core.rocks.journal, stateKey(name));
    } catch (RocksDBException e) {
      throw new StorageException("reading journal state " + name + " failed: " + e.getMessage(),
          e);
    } finally {
      core.locks.lifecycle.readLock().unlock();
    }
  }

  /**
   * Visits records whose start lies in {@code [fromStartMs, toStartMs]}, by start time then id.
   *
   * @param fromStartMs lowest start, milliseconds
   * @param toStartMs highest start, milliseconds
   * @param visitor told each record
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public void scan(long fromStartMs, long toStartMs, Visitor visitor) throws StorageException {
    core.locks.lifecycle.readLock().lock();
    try (RocksIterator it = openIterator()) {
      for (it.seek(recordKey(fromStartMs, "")); it.isValid(); it.next()) {
        byte[] k = it.key();
        if (k.length < 9 || k[0] != RECORD) {
          break;
        }
        long start = ByteBuffer.wrap(k, 1, 8).getLong() ^ Long.MIN_VALUE;
        if (start > toStartMs) {
          break;
        }
        String id = new String(k, 9, k.length - 9, StandardCharsets.UTF_8);
        if (!visitor.visit(start, id, it.value())) {
          break;
        }
      }
      it.status();
    } catch (RocksDBException e) {
      throw new StorageException("reading the journal failed: " + e.getMessage(), e);
    } finally {
      core.locks.lifecycle.readLock().unlock();
    }
  }

  private RocksIterator openIterator() throws StorageException {
    core.ensureOpen();
    return core.rocks.db.newIterator(core.rocks.journal);
  }

  /**
   * Deletes every record that started before {@code startMs} (retention).
   *
   * @param startMs the horizon, milliseconds
   * @return records deleted
   * @throws StorageException if RocksDB fails or the store is closed
   */
  public int dropBefore(long startMs) throws StorageException {
    java.util.List<byte[]> keys = new java.util.ArrayList<>();
    scan(Long.MIN_VALUE, startMs - 1, (s, id, v) -> keys.add(recordKey(s, id)));
    if (!keys.isEmpty()) {
      write(batch -> {
        for (byte[] k : keys) {
          batch.delete(core.rocks.journal, k);
        }
      });
    }
    return keys.size();
  }

  private interface BatchFill {
    void fill(WriteBatch batch) throws RocksDBException;
  }

  private void write(BatchFill fill) throws StorageException {
    core.locks.lifecycle.readLock().lock();
    try (WriteBatch batch = new WriteBatch()) {
      core.ensureOpen();
      fill.fill(batch);
      core.rocks.db.write(core.rocks.writeOptions, batch);
    } catch (RocksDBException e) {
      throw new StorageException("writing the journal failed: " + e.getMessage(), e);
    } finally {
      core.locks.lifecycle.readLock().unlock();
    }
  }
}
