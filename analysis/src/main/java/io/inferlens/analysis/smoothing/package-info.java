/** Smoothing of evaluated step series: simple and exponential moving averages. */
package io.inferlens.analysis.smoothing;
