import java.io.BufferedReader;
import java.io.FileReader;
import java.util.Arrays;

import weka.classifiers.Classifier;
import weka.classifiers.bayes.BayesNet;
import weka.core.Instances;
import weka.core.Utils;

/** Weka's class distribution of each test row at full precision; for a BayesNet also each attribute's parents.
 *
 * Usage: java -cp weka.jar:CLASSES WekaDistributions CLASSIFIER TRAIN.arff TEST.arff [OPTIONS...]
 * (the class is the last attribute); the classifier's options go to stderr. Prints one line per test row, the probabilities in the declared class
 * order; then, for a BayesNet, a line "parents" and one line per attribute with its parents' indices. */
public class WekaDistributions {
    public static void main(String[] args) throws Exception {
        Instances train = new Instances(new BufferedReader(new FileReader(args[1])));
        Instances test = new Instances(new BufferedReader(new FileReader(args[2])));
        train.setClassIndex(train.numAttributes() - 1);
        test.setClassIndex(test.numAttributes() - 1);
        Classifier classifier = Classifier.forName(args[0], Arrays.copyOfRange(args, 3, args.length));
        classifier.buildClassifier(train);
        System.err.println(Utils.joinOptions(((weka.core.OptionHandler) classifier).getOptions()));
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < test.numInstances(); i++) {
            double[] distribution = classifier.distributionForInstance(test.instance(i));
            for (int k = 0; k < distribution.length; k++) {
                out.append(k == 0 ? "" : " ").append(Double.toString(distribution[k]));
            }
            out.append('\n');
        }
        if (classifier instanceof BayesNet) {
            BayesNet net = (BayesNet) classifier;
            out.append("parents\n");
            for (int a = 0; a < train.numAttributes() - 1; a++) {
                for (int p = 0; p < net.getParentSet(a).getNrOfParents(); p++) {
                    out.append(p == 0 ? "" : " ").append(net.getParentSet(a).getParent(p));
                }
                out.append('\n');
            }
        }
        System.out.print(out);
    }
}
