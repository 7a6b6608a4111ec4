// Records what a real JVM answers for the Java value rules msgfilter.java reproduces.
// Run from the repository root with Java 17 (see README.md beside this file):
//     java tests/data/java/JavaTables.java tests/data/java
// Writes parse.jsonl, tostring.jsonl, strings.jsonl and digits.json. Run with a later JVM
// (19+) it writes only tostring-java<N>.jsonl: the shortest-digits Double.toString. Inputs are hand-picked
// edge cases plus seeded random ones, so the tables are the same on every run.

import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

public class JavaTables {
    static final String[] EDGES = {
        "", "+", "-", ".", "+.", "-.", "e5", "E5", "1e", "1e+", "1e-", "0x", "0X", "0x.", "0xp1",
        "0x1", "0x1p", "0x1.8p1", "0X1.8P1", "-0x1.8p1", "+0x.8p1", "0x1.p1", "0x.1p-1",
        "0x1p1f", "0x1p1D", "0x1p1x", "0x1.8p1 ", " 0x1.8p1", "0xg", "0x1p+1", "0x1p-1074",
        "0x1p-1075", "0x1.8p-1075", "0x0.0000000000001p-1022", "0x1.fffffffffffffp1023",
        "0x1.fffffffffffff8p1023", "0x1p1024", "0x1.ffffffp127", "0x1.fffffefp127",
        "0x1.000001p0", "0x1.0000011p0", "0x1.000003p0", "0x1p-149", "0x1p-150", "0x1.8p-150",
        "1", "-1", "+1", "01", "-0", "+0", "0", "00", "1.", ".5", "-.5", "+.5", "1.5E-3",
        "1e5", "1E5", "1e+5", "1e-5", "1.e5", ".e5", "1..2", "1.2.3", "1e5.5", "1e5e5",
        "1f", "1F", "1d", "1D", "1ff", "1fd", "1l", "1L", "1.5f", ".5d", "1e5f", "f", "d", ".f",
        "NaN", "-NaN", "+NaN", "nan", "NAN", "NaNf", "NaNd", " NaN ", "NaN0",
        "Infinity", "-Infinity", "+Infinity", "infinity", "INFINITY", "Inf", "inf",
        "Infinityf", "Infinityd", " Infinity\t", "-Infinity ", "Infinity0",
        "2147483647", "2147483648", "-2147483648", "-2147483649", "+2147483647",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "-9223372036854775809", "000000000000000000000000000000000000000001",
        "-00000000000000000000000000000000000000000009223372036854775808",
        "127", "128", "-128", "-129", "32767", "32768", "-32768", "-32769",
        "99999999999999999999999999999999", "1_000", "1,000", "1 000", "0x10", "0b1", "010",
        "\u0663", "\u0661\u0662\u0663", "-\u0663", "\u0966\u0967", "\uff19", "\uff11\uff10",
        "\ud835\udfd7", "9\ud835\udfd7", "\ud801\udca0", "\ud800", "\udc00", "1\ud800",
        "\u0e53\u0e52", "\u17e0", "\u1040", "\u07c0", "\ua620", "\uabf9", "\u0bef", "\u00b2",
        "\u2460", "\u0661.\u0662", "\u0663e1", "\u00bd",
        " 1", "1 ", "\t1", "1\n", "\u00001", "1\u0000", "\u00a01", "1\u00a0", "\u20071",
        "\u30001", "\u20281", "\u001f1.5\u001f", " \t\n\r\u000b\f1.5 \t\n\r\u000b\f",
        "\u00851.5", "1.5\u0085", "\u0020", "\u0000", "\u00a0",
        "true", "TRUE", "True", "tRuE", "false", "yes", "1", " true", "true ", "truee", "t",
        "\u0074rue", "tru\u0435", "\u0130", "\u212a",
        "1.0E23", "2.0E-3", "9.999999999999999E22", "4.9E-324", "2.4E-324", "2.5E-324",
        "2.4703282292062327E-324", "2.4703282292062328E-324", "1.7976931348623157E308",
        "1.7976931348623158E308", "1.7976931348623159E308", "1e309", "1e-400", "1e400000000000",
        "1e-400000000000", "0e400000000000", "1e2147483647", "1e2147483648", "1e-2147483648",
        "3.4028235E38", "3.4028236E38", "3.4028235677973366E38", "3.40282357E38", "1.4E-45",
        "7.0E-46", "7.006492321624086E-46", "7.006492321624087E-46", "1.0E10", "1.17549435E-38",
        "16777217", "16777217.0", "16777219", "33554433", "8388609.5", "0.1", "0.2", "0.3",
        "123456789012345678901234567890", "0.000000000000000000000000000000000001",
        "1.00000017881393432617187499", "1.000000178813934326171875",
        "1.00000017881393432617187501",
    };

    static final String[] PIECES = {
        "0", "1", "5", "9", "12", "007", "99999", "2147483648", "9223372036854775808",
        "+", "-", ".", "e", "E", "e-", "E+", "x", "0x", "0X", "p", "P", "p-", "a", "F", "c",
        "f", "F", "d", "D", "l", "_", ",", "NaN", "Infinity", "nan", "Inf", "infinity",
        " ", "\t", "\n", "\u0000", "\u0001", "\u001f", "\u0020", "\u007f", "\u0085", "\u00a0",
        "\u2007", "\u2028", "\u3000", "\ufeff", "\u0663", "\u0966", "\u0e55", "\uff17",
        "\u1090", "\ud835\udfd7", "\ud801\udca3", "\ud800", "\udfff", "\u00b2", "\u0031",
    };

    static final String WHITE = " \t\n\r\u000b\f\u0000\u0001\u001f\u0020\u00a0\u2007\u3000";

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : ".");
        int feature = Runtime.version().feature();
        if (feature != 17) {
            // A later JVM: only Double.toString, which changed in Java 19 (JDK-4511638).
            writeToString(dir.resolve("tostring-java" + feature + ".jsonl"), new Random(20261126L),
                    false);
            return;
        }
        Random random = new Random(20261125L);
        writeParse(dir.resolve("parse.jsonl"), random);
        writeToString(dir.resolve("tostring.jsonl"), random, true);
        writeStrings(dir.resolve("strings.jsonl"), random);
        writeDigits(dir.resolve("digits.json"));
    }

    // --- parsing ------------------------------------------------------------------------

    static void writeParse(Path path, Random random) throws IOException {
        Set<String> inputs = new LinkedHashSet<>(List.of(EDGES));
        for (int i = 0; i < 900; i++) {
            StringBuilder b = new StringBuilder();
            int n = 1 + random.nextInt(5);
            for (int j = 0; j < n; j++) {
                b.append(PIECES[random.nextInt(PIECES.length)]);
            }
            inputs.add(b.toString());
        }
        for (int i = 0; i < 300; i++) {  // integers around the type bounds
            long[] bounds = {127, 128, 32767, 32768, Integer.MAX_VALUE, 1L << 31, Long.MAX_VALUE};
            long base = bounds[random.nextInt(bounds.length)];
            BigDecimal v = new BigDecimal(base).add(BigDecimal.valueOf(random.nextInt(5) - 2));
            String text = v.toPlainString();
            inputs.add(random.nextBoolean() ? "-" + text : text);
        }
        for (int i = 0; i < 400; i++) {  // decimal text of doubles, plain and mangled
            double d = Double.longBitsToDouble(random.nextLong());
            if (Double.isNaN(d)) continue;
            String text = Double.toString(d);
            switch (random.nextInt(6)) {
                case 0 -> inputs.add(text);
                case 1 -> inputs.add(new BigDecimal(d).round(new MathContext(30)).toString());
                case 2 -> inputs.add(WHITE.charAt(random.nextInt(WHITE.length())) + text
                        + "fFdD".charAt(random.nextInt(4)));
                case 3 -> inputs.add(Double.toHexString(d));
                case 4 -> inputs.add(text.toLowerCase());
                default -> inputs.add(text.replace("E", "e+"));
            }
        }
        for (int i = 0; i < 400; i++) {  // decimals at and beside float32 halfway points
            float f = Float.intBitsToFloat(random.nextInt() & 0x7fffffff);
            if (Float.isNaN(f) || Float.isInfinite(f)) continue;
            float g = Math.nextUp(f);
            BigDecimal mid = new BigDecimal(f).add(new BigDecimal(g)).divide(BigDecimal.valueOf(2));
            BigDecimal tiny = mid.ulp().scaleByPowerOfTen(random.nextInt(3));
            switch (random.nextInt(3)) {
                case 0 -> inputs.add(mid.toString());
                case 1 -> inputs.add(mid.add(tiny).toString());
                default -> inputs.add(mid.subtract(tiny).toString());
            }
        }
        for (int i = 0; i < 200; i++) {  // short random decimals
            StringBuilder b = new StringBuilder();
            b.append(random.nextInt(1000));
            if (random.nextBoolean()) b.append('.').append(random.nextInt(100000));
            if (random.nextBoolean()) b.append('e').append(random.nextInt(700) - 350);
            inputs.add(b.toString());
        }
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(path, StandardCharsets.UTF_8))) {
            for (String s : inputs) {
                // [text, int, long, short, byte, double bits, float bits, boolean]
                StringBuilder row = new StringBuilder("[").append(json(s));
                row.append(",").append(tryLong(() -> (long) Integer.valueOf(s)));
                row.append(",").append(tryLong(() -> Long.valueOf(s)));
                row.append(",").append(tryLong(() -> (long) Short.valueOf(s)));
                row.append(",").append(tryLong(() -> (long) Byte.valueOf(s)));
                row.append(",").append(tryBits(() -> Double.doubleToRawLongBits(Double.valueOf(s))));
                row.append(",").append(tryBits(() -> Float.floatToRawIntBits(Float.valueOf(s)) & 0xffffffffL));
                row.append(",").append(Boolean.valueOf(s));
                out.println(row.append(']'));
            }
        }
    }

    interface LongCall { long call(); }

    static String tryLong(LongCall call) {
        try {
            return Long.toString(call.call());
        } catch (NumberFormatException e) {
            return "null";
        }
    }

    static String tryBits(LongCall call) {
        try {
            return "\"" + Long.toHexString(call.call()) + "\"";
        } catch (NumberFormatException e) {
            return "null";
        }
    }

    // --- printing -----------------------------------------------------------------------

    static void writeToString(Path path, Random random, boolean withFloats) throws IOException {
        List<Double> doubles = new ArrayList<>(List.of(
            1.0E23, 2.0E-3, 9.999999999999999E22, 1e22, 1e21, 5e-324, 1e-323, 2.2250738585072014E-308,
            2.225073858507201E-308, Double.MAX_VALUE, Double.MIN_NORMAL, 0.001, 0.0009999999999999998,
            1e7, 9999999.999999998, 1e-3, 0.1, 0.2, 0.30000000000000004, 1.0, 2.0, 100.0, 123456.789,
            1234567.0, 12345678.0, -1.5, 4.35, 2e22, 8.41e21, 5.764607523034235E39, 1.0E-5));
        for (int e = -330; e <= 310; e++) {
            doubles.add(Double.parseDouble("1e" + e));
        }
        for (int e = -1074; e <= 1023; e += 7) {
            doubles.add(Math.scalb(1.0, e));
        }
        for (int i = 0; i < 900; i++) {
            doubles.add(Double.longBitsToDouble(random.nextLong()));
        }
        for (int i = 0; i < 400; i++) {
            doubles.add(Double.parseDouble(random.nextInt(100000) + "e" + (random.nextInt(60) - 30)));
        }
        for (int i = 0; i < 200; i++) {
            doubles.add(Double.longBitsToDouble(random.nextLong() & 0x000fffffffffffffL));
        }
        List<Float> floats = new ArrayList<>(List.of(
            1.0E10f, 3.4028235E38f, 1.4E-45f, Float.MIN_NORMAL, 1.0E-3f, 1.0E7f, 0.1f, 0.3f, 1.1f,
            16777216f, 1.0E-44f, 2.8E-45f, 9.8E-45f, 1.17549435E-38f, 123456.7f, 8.5e9f));
        for (int e = -46; e <= 39; e++) {
            floats.add(Float.parseFloat("1e" + e));
        }
        for (int e = -149; e <= 127; e += 3) {
            floats.add(Math.scalb(1.0f, e));
        }
        for (int i = 0; i < 700; i++) {
            floats.add(Float.intBitsToFloat(random.nextInt()));
        }
        for (int i = 0; i < 300; i++) {
            floats.add(Float.parseFloat(random.nextInt(100000) + "e" + (random.nextInt(40) - 20)));
        }
        for (int i = 0; i < 100; i++) {
            floats.add(Float.intBitsToFloat(random.nextInt() & 0x007fffff));
        }
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(path, StandardCharsets.UTF_8))) {
            for (double d : doubles) {
                if (Double.isNaN(d)) continue;
                out.println("{\"d\":\"" + Long.toHexString(Double.doubleToRawLongBits(d))
                        + "\",\"s\":" + json(Double.toString(d)) + "}");
            }
            for (float f : floats) {
                if (Float.isNaN(f) || !withFloats) continue;
                out.println("{\"f\":\"" + Integer.toHexString(Float.floatToRawIntBits(f))
                        + "\",\"s\":" + json(Float.toString(f)) + "}");
            }
        }
    }

    // --- strings ------------------------------------------------------------------------

    static void writeStrings(Path path, Random random) throws IOException {
        String[] alphabet = {"a", "Z", "0", " ", "\t", "\u0000", "\u001f", "\u00a0", "\u00e9",
            "\uffff", "\ue000", "\ud835\udfd7", "\ud800", "\udc00", "\u3000", "TagA", "\u4e2d"};
        List<String> texts = new ArrayList<>(List.of("", "TagA", "*", "\ud835\udfd7", "\u0000a\u0000"));
        for (int i = 0; i < 300; i++) {
            StringBuilder b = new StringBuilder();
            int n = random.nextInt(8);
            for (int j = 0; j < n; j++) {
                b.append(alphabet[random.nextInt(alphabet.length)]);
            }
            texts.add(b.toString());
        }
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(path, StandardCharsets.UTF_8))) {
            for (int i = 0; i < texts.size(); i++) {
                String s = texts.get(i);
                String other = texts.get((i * 7 + 3) % texts.size());
                out.println("{\"s\":" + json(s) + ",\"hash\":" + s.hashCode() + ",\"trim\":"
                        + json(s.trim()) + ",\"other\":" + json(other) + ",\"cmp\":"
                        + Integer.signum(s.compareTo(other)) + "}");
            }
        }
    }

    // --- Character.digit ----------------------------------------------------------------

    static void writeDigits(Path path) throws IOException {
        StringBuilder b = new StringBuilder("{\"java\":\"" + System.getProperty("java.version")
                + "\",\"digits\":[");
        boolean first = true;
        for (int c = 0; c <= 0xffff; c++) {
            int d = Character.digit((char) c, 10);
            if (d != -1) {
                b.append(first ? "" : ",").append("[").append(c).append(",").append(d).append("]");
                first = false;
            }
        }
        Files.writeString(path, b.append("]}\n"));
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                b.append(c);
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b.append('"').toString();
    }
}
