/**
 * Chunk encodings shared with Prometheus, for remote read's {@code STREAMED_XOR_CHUNKS} responses.
 * Nothing here touches the store's own on-disk format ({@code storage/FORMAT.md}).
 */
package io.inferlens.storage.chunk;
