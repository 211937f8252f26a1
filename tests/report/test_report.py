"""Reports: evidence and mutual information against hand computations, per-class scores against
scikit-learn, the ignored-attributes warning, and the rendered files."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.metrics import mutual_info_score, precision_recall_fscore_support

from nbparallel import NaiveBayes
from nbparallel.report import model_summary, plot_evidence, write_report


def small_frame():
    return pd.DataFrame({
        "colour": ["red", "red", "blue", "blue", "red", "blue", "green", "red"],
        "shape": ["round", "long", "long", "round", "round", "long", "long", None],
        "const": ["k"] * 8,
        "label": ["a", "a", "b", "b", "a", "b", "b", "a"],
    }, dtype=object)


def test_evidence_and_mutual_information_by_hand():
    frame = small_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = NaiveBayes(alpha=1.0, class_alpha=1.0).fit(frame, "label")
    summary = model_summary(model)
    colour = next(a for a in summary["attributes"] if a["name"] == "colour")
    pi = {"a": (4 + 1) / (8 + 2), "b": (4 + 1) / (8 + 2)}
    n_ck = {("blue", "a"): 0, ("blue", "b"): 3, ("green", "a"): 0, ("green", "b"): 1, ("red", "a"): 4, ("red", "b"): 0}
    p = {(m, k): (n_ck[m, k] + 1) / (4 + 3) for m in ("blue", "green", "red") for k in "ab"}
    for i, m in enumerate(colour["values"]):
        marginal = sum(pi[k] * p[m, k] for k in "ab")
        for j, k in enumerate("ab"):
            assert colour["evidence"][i, j] == pytest.approx(math.log(p[m, k]) - math.log(marginal), abs=1e-12)
    assert colour["counts"].tolist() == [3, 1, 4]
    assert colour["mutual_information"] == pytest.approx(
        mutual_info_score(frame["colour"], frame["label"]) / math.log(2), abs=1e-12)
    shape_rows = frame["shape"].notna()
    shape = next(a for a in summary["attributes"] if a["name"] == "shape")
    assert shape["mutual_information"] == pytest.approx(
        mutual_info_score(frame["shape"][shape_rows], frame["label"][shape_rows]) / math.log(2), abs=1e-12)
    assert [a["name"] for a in summary["attributes"]] == ["colour", "shape"]  # ranked by MI
    assert summary["ignored"] == {"const": "a single observed category ('k')"}


def test_warning_names_every_cause_when_most_attributes_are_ignored():
    frame = pd.DataFrame({"c": ["x"] * 6, "n": [2.5] * 6, "gone": [np.nan] * 6, "ok": [1.0, 2, 3, 4, 5, 6],
                          "y": [0, 1, 0, 1, 0, 1]})
    with pytest.warns(UserWarning, match="3 of 4 attributes are ignored") as caught:
        model = NaiveBayes().fit(frame, "y")
    message = str(caught[0].message)
    assert "'c': a single observed category ('x')" in message
    assert "'n': constant (every observed value is 2.5)" in message
    assert "'gone': no observed value" in message
    with pytest.warns(UserWarning, match="every attribute is ignored"):
        NaiveBayes().fit(frame[["c", "n", "y"]], "y")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        NaiveBayes().fit(frame[["c", "ok", "y"]], "y")  # half ignored: no warning
    assert set(model.ignored_reasons()) == {"c", "n", "gone"}


def test_evaluate_per_class_scores_and_spss_error():
    X, y = load_wine(return_X_y=True)
    model = NaiveBayes(n_bins=3).fit(X[::2], y[::2])
    result = model.evaluate(X[1::2], y[1::2])
    precision, recall, f1, _ = precision_recall_fscore_support(y[1::2], model.predict(X[1::2]), zero_division=0)
    np.testing.assert_allclose(result["precision"], precision, rtol=1e-12)
    np.testing.assert_allclose(result["recall"], recall, rtol=1e-12)
    np.testing.assert_allclose(result["f1"], f1, rtol=1e-12)
    assert result["classification_error"] == pytest.approx(1 - result["accuracy"], abs=1e-15)
    assert result["classification_error"] == pytest.approx(np.mean(model.predict(X[1::2]) != y[1::2]), abs=1e-15)


def test_report_files(tmp_path):
    data = load_wine(as_frame=True)
    frame = data.data.assign(batch="one")
    model = NaiveBayes().fit(frame, data.target)
    fig = plot_evidence(model, max_attributes=4)
    assert len([ax for ax in fig.axes if ax.get_images()]) == 4
    png = write_report(model, tmp_path / "r.png", max_attributes=2)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = write_report(model, tmp_path / "r.html", max_attributes=2).read_text()
    assert "flavanoids" in page and "batch</b>: a single observed category" in page
    assert page.count("<h3>") == 13
    with pytest.raises(ValueError, match="must end in"):
        write_report(model, tmp_path / "r.txt")
    assert not list(tmp_path.glob(".*"))  # no temporary file left


def test_gaussian_attributes_are_in_the_summary_and_the_report(tmp_path):
    from sklearn.naive_bayes import GaussianNB

    data = load_wine(as_frame=True)
    frame = data.data[["alcohol", "flavanoids", "hue"]].assign(
        colour=np.where(data.data["color_intensity"] > 5, "dark", "light"), gone=np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "gone" has no observed value
        model = NaiveBayes(numeric={"flavanoids": "gaussian", "hue": "gaussian", "gone": "gaussian"}).fit(
            frame, data.target)
    summary = model_summary(model)
    assert sorted(a["name"] for a in summary["attributes"]) == ["alcohol", "colour"]  # ranked by MI
    assert [g["name"] for g in summary["gaussian"]] == ["flavanoids", "hue"]
    assert summary["ignored"] == {"gone": "no observed value (every value missing)"}
    reference = GaussianNB().fit(frame[["flavanoids", "hue"]], data.target)
    for g, name in enumerate(["flavanoids", "hue"]):
        got = summary["gaussian"][g]
        np.testing.assert_allclose(got["mean"], reference.theta_[:, g], rtol=1e-12)
        np.testing.assert_allclose(got["std"] ** 2, reference.var_[:, g], rtol=1e-9)
    page = write_report(model, tmp_path / "r.html").read_text()
    assert "Gaussian attributes" in page and "<td>flavanoids</td>" in page and "<td>hue</td>" in page
    fig = plot_evidence(model)
    text = "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)
    assert "Gaussian attributes (2;" in text and "flavanoids:" in text
    assert "178 training cases, 4 attributes used" in fig.get_suptitle()
    all_gaussian = NaiveBayes(numeric="gaussian").fit(frame[["flavanoids", "hue"]], data.target)
    assert model_summary(all_gaussian)["n_cases"] == len(frame)  # the cases, though nothing is counted


def test_cli_report_evaluate_json_and_fit_warning(tmp_path, capsys):
    import json

    from nbparallel.cli import main

    data = load_wine(as_frame=True)
    frame = data.data.assign(cls=data.target)
    frame.to_csv(tmp_path / "d.csv", index=False)
    assert main(["fit", str(tmp_path / "d.csv"), "--target", "cls", "-o", str(tmp_path / "m.json"), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(tmp_path / "m.json"), str(tmp_path / "d.csv"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["classes"] == [0, 1, 2] and len(result["f1"]) == 3
    assert result["classification_error"] == pytest.approx(1 - result["accuracy"])
    assert main(["report", str(tmp_path / "m.json"), "-o", str(tmp_path / "r.html"), "--top", "1"]) == 0
    assert "flavanoids" in (tmp_path / "r.html").read_text()
    frame[["cls"]].assign(batch="one").to_csv(tmp_path / "bad.csv", index=False)
    assert main(["fit", str(tmp_path / "bad.csv"), "--target", "cls", "-o", str(tmp_path / "b.json"), "--quiet"]) == 0
    assert "warning: every attribute is ignored" in capsys.readouterr().err


def test_text_report_ranks_each_classs_features_by_evidence(tmp_path):
    from sklearn.feature_extraction.text import CountVectorizer

    from nbparallel import BernoulliNaiveBayes, MultinomialNaiveBayes
    from nbparallel.report import text_summary

    docs = ["cat purr purr", "cat meow", "kitten purr", "dog bark", "dog woof bark", "puppy bark", "the cat and dog"]
    labels = ["cat", "cat", "cat", "dog", "dog", "dog", "dog"]
    vectorizer = CountVectorizer()
    X = vectorizer.fit_transform(docs)
    words = list(vectorizer.get_feature_names_out())
    for model in (MultinomialNaiveBayes().fit(X, labels), BernoulliNaiveBayes().fit(X, labels)):
        summary = text_summary(model, max_features=3, feature_names=words)
        prior = np.exp(model.class_log_prior_)
        p = np.exp(model.feature_log_prob_)
        for k, c in enumerate(summary["classes"]):
            assert c["name"] == model.classes_[k] and c["documents"] == model.class_count_[k]
            evidence = {w: math.log(p[k, j]) - math.log(prior @ p[:, j]) for j, w in enumerate(words)
                        if model.feature_count_[k, j] > 0}
            best = sorted(evidence, key=lambda w: -evidence[w])[:3]
            assert [f["name"] for f in c["features"]] == best
            for f in c["features"]:
                assert f["evidence"] == pytest.approx(evidence[f["name"]], abs=1e-12)
                assert f["count"] == model.feature_count_[k, words.index(f["name"])]
        assert summary["classes"][0]["features"][0]["name"] in ("purr", "meow", "kitten")
        assert summary["classes"][1]["features"][0]["name"] in ("bark", "woof", "puppy")
        page = write_report(model, tmp_path / "t.html", feature_names=words).read_text()
        assert "log P(feature | class) - log P(feature)" in page and "<td>purr</td>" in page
        assert write_report(model, tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert text_summary(model)["classes"][0]["features"][0]["name"].startswith("#")  # no names: column numbers
    with pytest.raises(ValueError, match="feature_names has 2 names for"):
        text_summary(model, feature_names=["a", "b"])


def test_hashed_words_name_the_columns_text_fit_hashes_into(tmp_path):
    from nbparallel.data.documents import hashed_words, read_documents, read_labels

    (tmp_path / "docs.txt").write_text("Cats purr\nthe dog barks at cats\n")
    (tmp_path / "labels.txt").write_text("cat\ndog\n")
    X, y = read_documents(tmp_path / "docs.txt", n_features=2**8)
    assert y is None and X.shape == (2, 2**8) and X.sum() == 7
    assert read_labels(tmp_path / "labels.txt").tolist() == ["cat", "dog"]
    words = hashed_words(tmp_path / "docs.txt", n_features=2**8)
    assert set(np.unique(X.nonzero()[1])) == set(words)
    assert sorted(w for ws in words.values() for w in ws) == ["at", "barks", "cats", "dog", "purr", "the"]
    cats = next(j for j, ws in words.items() if "cats" in ws)
    assert X[:, cats].toarray().ravel().tolist() == [1, 1]
    (tmp_path / "corpus" / "cat").mkdir(parents=True)
    (tmp_path / "corpus" / "cat" / "a.txt").write_text("cats purr")
    X, y = read_documents(tmp_path / "corpus", n_features=2**8)
    assert y.tolist() == ["cat"]
    with pytest.raises(ValueError, match="does not exist"):
        read_documents(tmp_path / "nope.txt")


def test_cluster_report_gives_each_clusters_weight_and_profile(tmp_path):
    from nbparallel import AutoClass
    from nbparallel.report import cluster_summary, plot_clusters

    rng = np.random.default_rng(0)
    group = rng.integers(0, 2, 400)
    frame = pd.DataFrame({
        "colour": np.where(group == 0, rng.choice(["red", "orange"], 400, p=[0.8, 0.2]),
                           rng.choice(["blue", "green"], 400, p=[0.7, 0.3])),
        "size": rng.normal(group * 5.0, 1.0),
        "noise": rng.choice(["x", "y"], 400),
    })
    model = AutoClass(n_clusters=2, n_restarts=3, random_state=0).fit(frame)
    summary = cluster_summary(model)
    np.testing.assert_allclose(summary["weight"], np.exp(model.cluster_log_prior_))
    assert summary["weight"].sum() == pytest.approx(1.0)
    assert [a["name"] for a in summary["attributes"]][-1] == "noise"  # ranked by MI with the cluster
    colour = next(a for a in summary["attributes"] if a["name"] == "colour")
    np.testing.assert_allclose(colour["probability"].sum(axis=0), 1.0)
    assert sorted(colour["mode"]) == ["blue", "red"]  # each cluster's most probable colour
    k = colour["mode"].index("red")
    assert colour["mode_probability"][k] == pytest.approx(colour["probability"][colour["values"].index("red"), k])
    assert colour["mutual_information"] == pytest.approx(
        mutual_info_score_of_counts(model.counts_[1:5]), abs=1e-12)
    fig = plot_clusters(model, max_attributes=2)
    assert "AutoClass model: 2 clusters of 400 rows, 3 attributes" in fig.get_suptitle()
    assert len([ax for ax in fig.axes if ax.get_images()]) == 3  # the profile and two attribute panels
    page = write_report(model, tmp_path / "c.html").read_text()
    assert "Cluster weights" in page and "<h3>colour" in page and "red (" in page
    assert write_report(model, tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="feature_names names the features of text models"):
        write_report(model, tmp_path / "c.png", feature_names=["a"])


def mutual_info_score_of_counts(cells):
    """Mutual information (bits) of a values x clusters table of (expected) counts, by the definition."""
    joint = cells / cells.sum()
    outer = joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)
    return float(np.sum(joint * np.log2(joint / outer)))


def test_boosted_report_draws_the_first_learner_and_others_are_refused(tmp_path):
    from nbparallel import BoostedNaiveBayes
    from nbparallel.report import report_kind

    data = load_wine(as_frame=True)
    boosted = BoostedNaiveBayes(n_rounds=3).fit(data.data, data.target)
    summary = model_summary(boosted)
    first = model_summary(boosted.estimators_[0])
    assert summary["note"].startswith("BoostedNaiveBayes: its first learner of 3")
    assert [a["name"] for a in summary["attributes"]] == [a["name"] for a in first["attributes"]]
    assert "its first learner" in plot_evidence(boosted, 2).get_suptitle()
    assert "its first learner of 3" in write_report(boosted, tmp_path / "b.html", 2).read_text()
    with pytest.raises(TypeError, match="a report needs a NaiveBayes, .* got dict"):
        report_kind({})


def test_cli_report_of_text_cluster_and_boosted_models(tmp_path, capsys):
    from nbparallel.cli import main

    data = load_wine(as_frame=True)
    frame = data.data.assign(cls=data.target)
    frame.to_csv(tmp_path / "d.csv", index=False)
    assert main(["cluster-fit", str(tmp_path / "d.csv"), "--clusters", "3", "--drop", "cls", "--seed", "0",
                 "--max-iter", "20", "-o", str(tmp_path / "c.json"), "--quiet"]) == 0
    assert main(["fit", str(tmp_path / "d.csv"), "--target", "cls", "--boost", "2", "-o", str(tmp_path / "b.json"),
                 "--quiet"]) == 0
    (tmp_path / "docs.txt").write_text("\n".join(["red apple", "green apple", "blue sky", "grey sky"] * 5))
    (tmp_path / "labels.txt").write_text("\n".join(["fruit", "fruit", "sky", "sky"] * 5))
    assert main(["text-fit", str(tmp_path / "docs.txt"), "--labels", str(tmp_path / "labels.txt"),
                 "--model", "bernoulli", "--hashing-bits", "8", "-o", str(tmp_path / "t.json")]) == 0
    for name in ("c", "b", "t"):
        for suffix in ("png", "html"):
            assert main(["report", str(tmp_path / f"{name}.json"), "-o", str(tmp_path / f"{name}.{suffix}")]) == 0
    assert "P(value | cluster) per attribute" in (tmp_path / "c.html").read_text()
    assert "Bernoulli naive Bayes model report" in (tmp_path / "t.html").read_text()
    capsys.readouterr()
    assert main(["report", str(tmp_path / "c.json"), "-o", str(tmp_path / "x.png"), "--documents",
                 str(tmp_path / "docs.txt")]) == 2
    assert "--documents names the hashed features of text models" in capsys.readouterr().err


def many_classes(n_classes, n_attributes, n_gaussian, n=2000, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    frame = pd.DataFrame({f"a{j:03d}": np.where(rng.random(n) < 0.5, (y * (j + 1)) % 4, rng.integers(0, 4, n)).astype(str)
                          for j in range(n_attributes)})
    for j in range(n_gaussian):
        frame[f"g{j}"] = rng.normal(y * (j + 1.0), 1.0, n)
    names = np.array([f"a class called {k} with a long name" for k in range(n_classes)])
    return frame, names[y]


def _overlaps(boxes):
    return any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


@pytest.mark.parametrize("n_classes, n_attributes", [(2, 1), (19, 30), (50, 200)])
def test_report_layout_is_readable_for_many_classes_and_attributes(n_classes, n_attributes):
    frame, y = many_classes(n_classes, n_attributes, n_gaussian=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = NaiveBayes(numeric="gaussian").fit(frame, y)
    fig = plot_evidence(model, max_attributes=4)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    text = "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)
    assert "log P(c | v) - log P(c)" in text and "It is not a\nlog-odds" in text
    total = n_attributes + 2
    panels = [ax for ax in fig.axes if ax.get_title(loc="left").startswith("#")]
    assert len(panels) == min(4, total)
    assert any("Gaussian" in ax.get_title(loc="left") for ax in panels) and any(ax.get_images() for ax in panels)
    for ax in panels:
        for ticks in (ax.get_xticklabels(), ax.get_yticklabels()):
            boxes = [t.get_window_extent(renderer) for t in ticks if t.get_text()]
            assert not _overlaps(boxes), ax.get_title(loc="left")
        title = ax._left_title.get_window_extent(renderer)
        assert not any(title.overlaps(t.get_window_extent(renderer)) for t in ax.get_xticklabels() if t.get_text())
    ranking = fig.axes[0]
    assert len(ranking.get_yticklabels()) == min(40, total)
    if total > 40:
        assert f"(top 40 of {total})" in ranking.get_title(loc="left") and f"top 4 of {total} attributes" in text
    if n_classes > 12:
        assert "classes as rows" in text and "cut to 16 characters" in text
    # the Gaussian attributes are ranked with the counted ones
    summary = model_summary(model)
    assert {a["name"] for a in summary["ranking"]} == set(frame.columns)


def test_gaussian_mutual_information_against_direct_integration():
    from scipy import integrate, stats

    from nbparallel.report import gaussian_mutual_information

    mean, std, prior = np.array([0.0, 1.5, 4.0]), np.array([1.0, 0.5, 2.0]), np.array([0.2, 0.5, 0.3])

    def density(x):
        return sum(p * stats.norm.pdf(x, m, s) for m, s, p in zip(mean, std, prior))

    h_x = integrate.quad(lambda x: -density(x) * np.log(density(x)) if density(x) > 0 else 0.0, -20, 20,
                         limit=400)[0]
    h_given = sum(p * stats.norm.entropy(m, s) for m, s, p in zip(mean, std, prior))
    assert gaussian_mutual_information(mean, std, prior) == pytest.approx((h_x - h_given) / np.log(2), abs=1e-5)
    assert gaussian_mutual_information(np.zeros(3), np.ones(3), prior) == pytest.approx(0.0, abs=1e-9)


def test_each_model_names_its_report_through_report_sections():
    from sklearn.feature_extraction.text import CountVectorizer

    from nbparallel import (AutoClass, BernoulliNaiveBayes, ComplementNaiveBayes, MultinomialNaiveBayes,
                            SelectedNaiveBayes)
    from nbparallel.report import report_kind, report_sections

    data = load_wine(as_frame=True)
    words = CountVectorizer().fit_transform(["red wine", "white wine", "red grape", "white grape"])
    labels = ["r", "w", "r", "w"]
    nb = NaiveBayes().fit(data.data, data.target)
    assert report_sections(nb) == {"kind": "naive Bayes", "model": nb, "note": None}
    selected = SelectedNaiveBayes().fit(data.data, data.target)
    assert report_kind(selected) == "naive Bayes" and report_sections(selected)["model"] is selected
    for model, name in ((MultinomialNaiveBayes(), "multinomial"), (BernoulliNaiveBayes(), "bernoulli")):
        sections = report_sections(model.fit(words, labels))
        assert (sections["kind"], sections["name"], sections["model"]) == ("text", name, model)
    clusters = AutoClass(n_clusters=2, max_iter=3, random_state=0).fit(data.data.iloc[:, :3])
    assert report_kind(clusters) == "clusters"
    with pytest.raises(TypeError, match="got ComplementNaiveBayes"):  # it has no report
        report_kind(ComplementNaiveBayes().fit(words, labels))
