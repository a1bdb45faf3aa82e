/**
 * The head: recent samples in memory ({@link io.inferlens.storage.head.HeadBuffer}, one per
 * series, Gorilla-style bit stream), the head-log record that makes them durable until a head
 * flush ({@link io.inferlens.storage.head.HeadLog}, FORMAT.md "Head log"), and the sample run
 * that reads collect into ({@link io.inferlens.storage.head.SampleRun}). Public for the store's
 * own packages only: not an API for other modules.
 *
 * <p>Every timestamp is in milliseconds since the epoch; values are raw IEEE-754 bits. None of
 * these classes is thread safe: the store guards each head buffer with its series' monitor and
 * the log encoder with the append lock.
 */
package io.inferlens.storage.head;
