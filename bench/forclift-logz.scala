// forclift-logz.scala: the driver bench/scaling.sh runs Forclift through
// (built by bench/forclift-build.sh): the log Z of one MLN file, the
// evidence in it as hard unit formulas, and the seconds of Forclift's own
// parse, compilation and count (the JVM's start excluded).
import edu.ucla.cs.starai.forclift.languages.mln.MLNParser

object LogZ {
  def main(args: Array[String]): Unit = {
    val text = scala.io.Source.fromFile(args(0)).mkString
    val t0 = System.nanoTime
    val mln = new MLNParser().parseMLN(text)
    val z = mln.toWeightedCNFWithoutSplitting(skolemize = true).logSmoothWmc
    val t1 = System.nanoTime
    println("log_z " + "%.17g".format(z.logToDouble))
    println("seconds " + "%.3f".format((t1 - t0) / 1e9))
  }
}
